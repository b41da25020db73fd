// Which field a refused save is about. The service words each refusal of a field starting with the
// field's name ("display name must be 1 to 64 characters…", "region: must be two letters…"), several
// joined by "; "; those go next to their field, anything else (a rate limit, a lost connection) in one
// alert above the form's button.
import { errorCode, errorText } from '../../errors.ts';

export type Refusal<F extends string> = { fields: Partial<Record<F, string>>; form: string | undefined };

export function readRefusal<F extends string>(err: unknown, patterns: Record<F, RegExp>): Refusal<F> {
  const text = errorText(err);
  if (errorCode(err) !== 'invalid_request') return { fields: {}, form: text };
  const fields: Partial<Record<F, string>> = {};
  const rest: string[] = [];
  for (const part of text.split('; ')) {
    const field = (Object.keys(patterns) as F[]).find((f) => patterns[f].test(part));
    if (field) fields[field] = fields[field] ? `${fields[field]}; ${part}` : part;
    else rest.push(part);
  }
  return { fields, form: rest.length ? rest.join('; ') : undefined };
}

/** First letter up: the service's messages start with the field's name in lower case. */
export const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
