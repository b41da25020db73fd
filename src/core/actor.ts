// Who a platform request acts for: resolved from the bearer token by the transport, then handed to core.
export type Actor = {
  userId: string;
  clientId: string;
  scopes: ReadonlySet<string>;
  /** Apps marked official by an operator (first-party clients). */
  official: boolean;
};
