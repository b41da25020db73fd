// The fields of a list a person writes (name, description, who can see it), the same on the Lists page's
// "New list" form and the List page's "Edit list" form. Uncontrolled: the forms read them on submit.
import { useId } from 'react';

export type ListFieldValues = { name: string; description: string; isPublic: boolean };

const NAME_MAX = 100;
const DESCRIPTION_MAX = 2000;

export function ListFields({ initial }: { initial?: ListFieldValues | undefined }) {
  const id = useId();
  return (
    <>
      <div className="field">
        <label htmlFor={`${id}-name`}>Name</label>
        <input id={`${id}-name`} name="name" type="text" required maxLength={NAME_MAX} defaultValue={initial?.name ?? ''} autoComplete="off" />
      </div>
      <div className="field">
        <label htmlFor={`${id}-description`}>Description</label>
        <textarea id={`${id}-description`} name="description" rows={3} maxLength={DESCRIPTION_MAX} defaultValue={initial?.description ?? ''} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-privacy`}>Privacy</label>
        <select id={`${id}-privacy`} name="privacy" defaultValue={initial?.isPublic ? 'public' : 'private'}>
          <option value="private">Private: only you and collaborators</option>
          <option value="public">Public: anyone can see it</option>
        </select>
      </div>
    </>
  );
}

/** The values of a form holding ListFields (the name trimmed, as the service stores it). */
export function readListFields(form: HTMLFormElement): ListFieldValues {
  const data = new FormData(form);
  return {
    name: String(data.get('name') ?? '').trim(),
    description: String(data.get('description') ?? ''),
    isPublic: data.get('privacy') === 'public',
  };
}
