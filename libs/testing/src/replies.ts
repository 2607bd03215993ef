/** A parsed JSON value as tests read it: field by field, with the assertions checking the shape. */
export type Json = any;

/** A reply of a service under test, injected in-process. */
export interface Reply {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Json;
}
