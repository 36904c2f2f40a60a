/** A query the compiler refuses: unknown table, column or function, unsupported construct. */
export class HogQLError extends Error {}

export const refuse = (message: string): never => {
  throw new HogQLError(message);
};
