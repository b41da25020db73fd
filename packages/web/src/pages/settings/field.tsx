// One labelled form field with its hint and, after a refused save, the service's message about it: the
// control is marked invalid and described by both, so a screen reader reads the reason on focus.
import type { ReactNode } from 'react';
import { sentence } from './refusal.ts';

export type ControlProps = { id: string; 'aria-describedby'?: string; 'aria-invalid'?: true };

export function Field({ id, label, hint, error, children }: { id: string; label: string; hint?: ReactNode; error?: string | undefined; children: (control: ControlProps) => ReactNode }) {
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, ...(described ? { 'aria-describedby': described } : {}), ...(error ? { 'aria-invalid': true } : {}) })}
      {hint && (
        <span id={`${id}-hint`} className="field-hint">
          {hint}
        </span>
      )}
      {error && (
        <span id={`${id}-error`} className="field-error">
          {sentence(error)}
        </span>
      )}
    </div>
  );
}

/** A checkbox with its label beside it and an optional hint under both. */
export function Check({ id, label, hint, checked, onChange }: { id: string; label: string; hint?: string; checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <div className="check">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} aria-describedby={hint ? `${id}-hint` : undefined} />
      <label htmlFor={id}>{label}</label>
      {hint && (
        <span id={`${id}-hint`} className="field-hint">
          {hint}
        </span>
      )}
    </div>
  );
}

/** What a form says after a save: done (a status), or a refusal not about one field (an alert). */
export function FormNote({ status, error }: { status: string | undefined; error: string | undefined }) {
  return (
    <>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <p className="form-status" role="status">
        {!error && status}
      </p>
    </>
  );
}
