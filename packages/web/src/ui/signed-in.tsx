// Pages of the signed-in user show, to a visitor, what the page is for and a way to sign in.
import { useSyncExternalStore, type ReactNode } from 'react';
import { isSignedIn, onAuthChange, signIn } from '../auth.ts';

export function useSignedIn(): boolean {
  return useSyncExternalStore(onAuthChange, isSignedIn);
}

export function SignedIn({ what, children }: { what: string; children: ReactNode }) {
  const signedIn = useSignedIn();
  if (signedIn) return <>{children}</>;
  return (
    <div className="empty">
      <p>Sign in to see {what}.</p>
      <button type="button" className="primary" onClick={() => void signIn()}>
        Sign in
      </button>
    </div>
  );
}
