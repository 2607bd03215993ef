import { z } from 'zod';
import { httpUrlSchema, nonEmptyStringSchema, utcDateTimeSchema, uuidSchema } from '../primitives';
import { paginationSchema } from '../resources/groups';
import { scopeSchema } from './scopes';

/**
 * Who an API client is: a retail service provider, the network operator's systems, an administrator, or the internal
 * services' own client (created from configuration at auth's start, never through the admin API).
 */
export const CLIENT_KINDS = ['RSP', 'OPERATOR', 'ADMIN', 'SERVICE'] as const;
/** Who an API client is. */
export type ClientKind = (typeof CLIENT_KINDS)[number];
/** One of the client kinds. */
export const clientKindSchema = z.enum(CLIENT_KINDS);
/** The kinds the admin API and the CLI register: every kind but SERVICE. */
export const REGISTRABLE_CLIENT_KINDS = ['RSP', 'OPERATOR', 'ADMIN'] as const;
/** A kind the admin API registers. */
export const registrableClientKindSchema = z.enum(REGISTRABLE_CLIENT_KINDS);

/** An RSP's webhook base URL: absolute http(s), without credentials or fragment (deliveries append their paths). */
export const webhookUrlSchema = httpUrlSchema.refine(
  (value) => {
    const url = new URL(value);
    return url.username === '' && url.password === '' && url.hash === '';
  },
  { message: 'must not contain credentials or a fragment' },
);

const clientNameSchema = nonEmptyStringSchema.pipe(z.string().max(200));
const scopesSchema = z.array(scopeSchema).min(1).max(10);

/** Body of POST /admin/clients. `scopes` defaults to every scope the kind may hold; only RSPs have a webhook. */
export const registerClientRequestSchema = z
  .object({
    name: clientNameSchema,
    kind: registrableClientKindSchema,
    scopes: scopesSchema.optional(),
    webhookUrl: webhookUrlSchema.optional(),
  })
  .strict();
/** Body of POST /admin/clients. */
export type RegisterClientRequest = z.infer<typeof registerClientRequestSchema>;

/** Body of PATCH /admin/clients/{id}: the fields to change; `webhookUrl: null` removes the webhook. */
export const updateClientRequestSchema = z
  .object({
    name: clientNameSchema.optional(),
    scopes: scopesSchema.optional(),
    webhookUrl: webhookUrlSchema.nullable().optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'must change at least one of name, scopes, webhookUrl' });
/** Body of PATCH /admin/clients/{id}. */
export type UpdateClientRequest = z.infer<typeof updateClientRequestSchema>;

/** A client as the admin API shows it: never a secret. */
export const clientViewSchema = z
  .object({
    clientId: uuidSchema,
    name: nonEmptyStringSchema,
    kind: clientKindSchema,
    scopes: z.array(scopeSchema),
    enabled: z.boolean(),
    webhookUrl: httpUrlSchema.optional(),
    createdAt: utcDateTimeSchema,
    updatedAt: utcDateTimeSchema,
  })
  .strict();
/** A client as the admin API shows it. */
export type ClientView = z.infer<typeof clientViewSchema>;

/** Newly issued secrets, shown exactly once: the OAuth client secret and, for RSPs, the webhook signing secret. */
export const clientSecretsSchema = z
  .object({ clientId: uuidSchema, clientSecret: nonEmptyStringSchema, webhookSecret: nonEmptyStringSchema.optional() })
  .strict();
/** Newly issued secrets of a client. */
export type ClientSecrets = z.infer<typeof clientSecretsSchema>;

/** Reply of POST /admin/clients (201): the client and its secrets, which are never shown again. */
export const registeredClientSchema = clientViewSchema.merge(clientSecretsSchema).strict();
/** Reply of POST /admin/clients. */
export type RegisteredClient = z.infer<typeof registeredClientSchema>;

/** Reply of GET /admin/clients. */
export const clientListSchema = z.object({ clients: z.array(clientViewSchema), pagination: paginationSchema }).strict();
/** Reply of GET /admin/clients. */
export type ClientList = z.infer<typeof clientListSchema>;
