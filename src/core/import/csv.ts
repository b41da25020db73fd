// CSV for people's spreadsheets (the unmatched rows of an import): RFC 4180 quoting, CRLF line ends,
// and every cell a spreadsheet would read as a formula (starting with = + - @, a tab or a carriage
// return) prefixed with a single quote, so a title named `=HYPERLINK(...)` in an uploaded file stays text.

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: defused if it could start a formula, quoted if it holds a quote, a comma or a line break. */
export function csvCell(value: string | number | null | undefined): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record with its line end. */
export function csvLine(cells: readonly (string | number | null | undefined)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}
