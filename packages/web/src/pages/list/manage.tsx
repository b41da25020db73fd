// The owner's controls of a list: "Edit list" (name, description, privacy; the change shows at once and
// is undone with the service's message if refused) and "Delete list" behind a confirm step (it takes the
// items with it, so it waits for the service and then goes to the Lists page).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { api } from '../../api.ts';
import { errorText } from '../../errors.ts';
import { ListFields, readListFields, type ListFieldValues } from '../../ui/list-fields.tsx';
import { listKeys } from '../../ui/list-keys.ts';
import { useToast } from '../../ui/toast.tsx';
import { useListChange, withList, type ListInfo } from './data.ts';

export function EditList({ list }: { list: ListInfo }) {
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const save = useListChange(list.id, (v: ListFieldValues) => api.platform.lists.update.mutate({ id: list.id, ...v }), (d, v) => withList(d, (l) => ({ ...l, ...v })));
  const close = () => {
    setOpen(false);
    toggle.current?.focus();
  };
  return (
    <>
      <button ref={toggle} type="button" className="secondary" aria-expanded={open} aria-controls="edit-list" onClick={() => setOpen((o) => !o)}>
        Edit list
      </button>
      {open && (
        <form
          id="edit-list"
          className="card edit-list"
          aria-label="Edit list"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate(readListFields(e.currentTarget));
            close();
          }}
          onKeyDown={(e) => e.key === 'Escape' && close()}
        >
          <ListFields initial={list} />
          <p className="actions">
            <button type="submit" className="primary">
              Save
            </button>
            <button type="button" className="secondary" onClick={close}>
              Cancel
            </button>
          </p>
        </form>
      )}
    </>
  );
}

export function DeleteList({ list }: { list: ListInfo }) {
  const [confirming, setConfirming] = useState(false);
  const qc = useQueryClient();
  const toast = useToast();
  const [, navigate] = useLocation();
  const cancel = useRef<HTMLButtonElement>(null);
  const start = useRef<HTMLButtonElement>(null);
  const remove = useMutation({
    mutationFn: () => api.platform.lists.delete.mutate({ id: list.id }),
    onSuccess: () => {
      qc.removeQueries({ queryKey: listKeys.detail(list.id) });
      void qc.invalidateQueries({ queryKey: listKeys.mine });
      toast(`List “${list.name}” deleted.`);
      navigate('/lists');
    },
  });
  useEffect(() => {
    if (confirming) cancel.current?.focus();
  }, [confirming]);
  if (!confirming) {
    return (
      <button ref={start} type="button" className="danger" onClick={() => setConfirming(true)}>
        Delete list
      </button>
    );
  }
  const back = () => {
    setConfirming(false);
    remove.reset();
    requestAnimationFrame(() => start.current?.focus());
  };
  return (
    <div className="card confirm" role="group" aria-labelledby="confirm-delete">
      <p id="confirm-delete">
        Delete “{list.name}” and its {list.itemCount === 1 ? 'title' : `${list.itemCount} titles`}? This cannot be undone.
      </p>
      {remove.isError && (
        <p className="error" role="alert">
          {errorText(remove.error)}
        </p>
      )}
      <p className="actions">
        <button type="button" className="danger" aria-busy={remove.isPending} onClick={() => remove.isPending || remove.mutate()}>
          Yes, delete
        </button>
        <button ref={cancel} type="button" className="secondary" onClick={back} onKeyDown={(e) => e.key === 'Escape' && back()}>
          Cancel
        </button>
      </p>
    </div>
  );
}
