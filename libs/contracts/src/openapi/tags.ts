/** Every tag an operation may carry. */
export type ApiTag =
  | 'Authentication'
  | 'Locations'
  | 'Groups'
  | 'Statistics'
  | 'Exports'
  | 'Webhooks'
  | 'Operator'
  | 'Administration'
  | 'Documentation';
