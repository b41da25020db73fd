// The CSV writer of the unmatched download: RFC 4180 quoting and formula injection defused.
import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from '../../src/core/import/csv.ts';

describe('csvCell', () => {
  it('leaves plain text alone and writes empty cells for nothing', () => {
    expect(csvCell('Spirited Away (2001)')).toBe('Spirited Away (2001)');
    expect(csvCell(42)).toBe('42');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell('')).toBe('');
  });

  it('quotes a cell holding a quote, a comma or a line break, doubling its quotes (RFC 4180)', () => {
    expect(csvCell('Crime, and Punishment')).toBe('"Crime, and Punishment"');
    expect(csvCell('The "Best" One')).toBe('"The ""Best"" One"');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\rlf')).toBe('"cr\rlf"');
  });

  it('prefixes a single quote to a cell a spreadsheet would read as a formula', () => {
    for (const start of ['=', '+', '-', '@']) expect(csvCell(`${start}1+1`)).toBe(`'${start}1+1`);
    expect(csvCell('\tSUM(A1)')).toBe("'\tSUM(A1)");
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
    expect(csvCell('=HYPERLINK("http://evil.example","x")')).toBe(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(csvCell('-12')).toBe("'-12");
    // Only at the start.
    expect(csvCell('A=B')).toBe('A=B');
  });
});

describe('csvLine', () => {
  it('joins cells with commas and ends with CRLF', () => {
    expect(csvLine(['history', 'watched.csv', 2, '=cmd|" /C calc"!A0'])).toBe(`history,watched.csv,2,"'=cmd|"" /C calc""!A0"\r\n`);
  });
});
