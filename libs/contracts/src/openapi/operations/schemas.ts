import { authorizationServerMetadataSchema } from '../../auth/authorization-server-metadata';
import {
  clientListSchema,
  clientSecretsSchema,
  clientViewSchema,
  registerClientRequestSchema,
  registeredClientSchema,
  updateClientRequestSchema,
} from '../../auth/clients';
import { oauthErrorBodySchema, tokenResponseSchema } from '../../auth/oauth';
import { errorBodySchema } from '../../errors/error-body';
import { errorCodeSchema } from '../../errors/error-codes';
import {
  exportAcceptedSchema,
  exportCompletedNotificationSchema,
  exportFailedNotificationSchema,
  exportFormatSchema,
  exportListReplySchema,
  exportNotificationSchema,
  exportRequestBodySchema,
  exportStatusReplySchema,
  exportedLocationSchema,
  jsonExportFileSchema,
} from '../../resources/exports';
import {
  addressGroupInputSchema,
  addressGroupListSchema,
  addressGroupSchema,
  locationGroupInputSchema,
  locationGroupListSchema,
  locationGroupSchema,
  paginationSchema,
} from '../../resources/groups';
import { importReportSchema } from '../../resources/imports';
import {
  addressSchema,
  coordinatesSchema,
  fiberAccessDetailsSchema,
  geographySchema,
  locationInputSchema,
  locationModifiedFieldsSchema,
  locationSchema,
  serviceabilitySchema,
  serviceabilityStatusSchema,
} from '../../resources/location';
import { locationListSchema } from '../../resources/read-queries';
import { changeEventDeliverySchema, changeEventSchema, changeFeedPageSchema } from '../../resources/changes';
import { digestEntriesReplySchema, digestNodeReplySchema } from '../../resources/digest';
import { statisticsResponseSchema } from '../../resources/statistics';
import {
  deliveryDetailSchema,
  deliveryListSchema,
  endpointSchema,
  redriveReplySchema,
  redriveRequestSchema,
  subscriptionUpdateSchema,
} from '../../resources/webhook-deliveries';
import { z } from '../extend-zod';
import { csvExportRecordSchema, variantOf } from '../schema-helpers';

/**
 * The schemas the document names under components.schemas; operations use these named copies. Wherever the document
 * repeats a shape named here it refers to it (`$ref`), and a union whose named options one field tells apart becomes a
 * discriminated `oneOf` (references.ts): to give a generated client a type of its own, name its schema here.
 */
export const SCHEMAS = {
  Location: locationSchema.openapi('Location'),
  LocationInput: locationInputSchema.openapi('LocationInput'),
  LocationPatch: (locationModifiedFieldsSchema as z.ZodTypeAny).openapi('LocationPatch', {
    description:
      'A JSON Merge Patch (RFC 7396) of a LocationInput: only the fields to change, `null` removes an optional field.',
  }),
  LocationList: locationListSchema.openapi('LocationList'),
  LocationGroup: locationGroupSchema.openapi('LocationGroup'),
  LocationGroupInput: locationGroupInputSchema.openapi('LocationGroupInput'),
  LocationGroupPatch: locationGroupInputSchema.partial().openapi('LocationGroupPatch'),
  LocationGroupList: locationGroupListSchema.openapi('LocationGroupList'),
  AddressGroup: addressGroupSchema.openapi('AddressGroup'),
  AddressGroupInput: addressGroupInputSchema.openapi('AddressGroupInput'),
  AddressGroupPatch: addressGroupInputSchema.partial().openapi('AddressGroupPatch'),
  AddressGroupList: addressGroupListSchema.openapi('AddressGroupList'),
  Geography: geographySchema.openapi('Geography'),
  Address: addressSchema.openapi('Address'),
  Coordinates: coordinatesSchema.openapi('Coordinates'),
  FiberAccessDetails: fiberAccessDetailsSchema.openapi('FiberAccessDetails'),
  Serviceability: serviceabilitySchema.openapi('Serviceability'),
  ServiceabilityStatus: serviceabilityStatusSchema.openapi('ServiceabilityStatus'),
  Pagination: paginationSchema.openapi('Pagination'),
  Statistics: statisticsResponseSchema.openapi('Statistics'),
  ImportReport: importReportSchema.openapi('ImportReport'),
  ExportRequest: exportRequestBodySchema.openapi('ExportRequest'),
  ExportAccepted: exportAcceptedSchema.openapi('ExportAccepted'),
  ExportFormat: exportFormatSchema.openapi('ExportFormat'),
  ExportFilters: (exportRequestBodySchema.shape.filters.unwrap() as z.AnyZodObject).openapi('ExportFilters'),
  ExportError: (exportFailedNotificationSchema.shape.error as z.AnyZodObject).openapi('ExportError'),
  ExportPending: variantOf(exportStatusReplySchema, 'PENDING').openapi('ExportPending'),
  ExportCompleted: variantOf(exportStatusReplySchema, 'COMPLETED').openapi('ExportCompleted', {
    description:
      'A COMPLETED export. GET exportUrl (no token) until downloadExpiresAt: a `json` export is a JsonExportFile, a ' +
      '`csv` export CSV records as CsvExportRecord describes; sha256 and sizeBytes are those of the file.',
  }),
  ExportFailed: variantOf(exportStatusReplySchema, 'FAILED').openapi('ExportFailed'),
  ExportStatus: exportStatusReplySchema.openapi('ExportStatus'),
  ExportList: exportListReplySchema.openapi('ExportList'),
  ExportCompletedNotification: exportCompletedNotificationSchema.openapi('ExportCompletedNotification'),
  ExportFailedNotification: exportFailedNotificationSchema.openapi('ExportFailedNotification'),
  ExportNotification: exportNotificationSchema.openapi('ExportNotification'),
  ExportedLocation: exportedLocationSchema.openapi('ExportedLocation', {
    description:
      'A location of a `json` export file: exactly as GET /locations/{id} serves it, followed by `version` when the ' +
      'export was requested with includeVersions.',
  }),
  JsonExportFile: jsonExportFileSchema.openapi('JsonExportFile', {
    description:
      'The file of a `json` export (`application/json`), as downloaded from exportUrl: every location of the export.',
  }),
  CsvExportRecord: csvExportRecordSchema().openapi('CsvExportRecord'),
  LocationCreatedEvent: changeEventSchema('LOCATION_CREATED').openapi('LocationCreatedEvent'),
  LocationUpdatedEvent: changeEventSchema('LOCATION_UPDATED').openapi('LocationUpdatedEvent'),
  LocationGroupCreatedEvent: changeEventSchema('LOCATION_GROUP_CREATED').openapi('LocationGroupCreatedEvent'),
  LocationGroupUpdatedEvent: changeEventSchema('LOCATION_GROUP_UPDATED').openapi('LocationGroupUpdatedEvent'),
  LocationGroupDeletedEvent: changeEventSchema('LOCATION_GROUP_DELETED').openapi('LocationGroupDeletedEvent'),
  AddressGroupCreatedEvent: changeEventSchema('ADDRESS_GROUP_CREATED').openapi('AddressGroupCreatedEvent'),
  AddressGroupUpdatedEvent: changeEventSchema('ADDRESS_GROUP_UPDATED').openapi('AddressGroupUpdatedEvent'),
  AddressGroupDeletedEvent: changeEventSchema('ADDRESS_GROUP_DELETED').openapi('AddressGroupDeletedEvent'),
  LocationEvent: changeEventDeliverySchema.openapi('LocationEvent', {
    description:
      "The OAF-100 event envelope: `data` is the location (or group) after the change, `modifiedFields` a location's diff, `version` the resource's version. Group events (LOCATION_GROUP_*, ADDRESS_GROUP_*) are this service's addition; a deletion's `data` is the group's last state.",
  }),
  ChangeFeedPage: changeFeedPageSchema.openapi('ChangeFeedPage', {
    description:
      'A page of the change feed: each change exactly as the webhook to /locations/events delivers it (the envelope ' +
      "with its resource's version), `next` the cursor to continue from (also on an empty page), `hasMore` whether " +
      'more can be read at once.',
  }),
  DigestNode: digestNodeReplySchema.openapi('DigestNode', {
    description:
      "A node of a resource's Merkle digest (docs/digest.md): its count and hash and its non-empty children, with the " +
      "read model's position in the snapshot they were computed from.",
  }),
  DigestEntries: digestEntriesReplySchema.openapi('DigestEntries', {
    description: "A node of a resource's Merkle digest with every (id, version) it holds, ordered by id.",
  }),
  ErrorCode: errorCodeSchema.openapi('ErrorCode'),
  ErrorBody: errorBodySchema.openapi('ErrorBody'),
  TokenRequest: z
    .object({
      grant_type: z.literal('client_credentials'),
      scope: z.string().optional().openapi({ description: 'Space-separated scopes; all the client holds if absent.' }),
      client_id: z.string().optional().openapi({ description: 'With client_secret, instead of HTTP Basic.' }),
      client_secret: z.string().optional(),
    })
    .openapi('TokenRequest'),
  TokenResponse: tokenResponseSchema.openapi('TokenResponse'),
  OAuthError: oauthErrorBodySchema.openapi('OAuthError'),
  AuthorizationServerMetadata: authorizationServerMetadataSchema.openapi('AuthorizationServerMetadata'),
  JsonWebKeySet: z
    .object({
      keys: z.array(
        z.object({
          kty: z.string(),
          kid: z.string(),
          alg: z.string(),
          use: z.literal('sig').optional(),
          crv: z.string().optional(),
          x: z.string().optional(),
          y: z.string().optional(),
          n: z.string().optional(),
          e: z.string().optional(),
        }),
      ),
    })
    .openapi('JsonWebKeySet', { description: 'The public keys that verify access tokens (RFC 7517).' }),
  ApiClientView: clientViewSchema.openapi('ApiClientView'),
  ApiClientRegistration: registerClientRequestSchema.openapi('ApiClientRegistration'),
  ApiClientUpdate: (updateClientRequestSchema as z.ZodTypeAny).openapi('ApiClientUpdate'),
  RegisteredApiClient: registeredClientSchema.openapi('RegisteredApiClient'),
  ApiClientSecrets: clientSecretsSchema.openapi('ApiClientSecrets'),
  ApiClientList: clientListSchema.openapi('ApiClientList'),
  DeliveryDetail: deliveryDetailSchema.openapi('DeliveryDetail'),
  DeliveryList: deliveryListSchema.openapi('DeliveryList'),
  Endpoint: endpointSchema.openapi('Endpoint'),
  EndpointList: z
    .object({ endpoints: z.array(endpointSchema) })
    .strict()
    .openapi('EndpointList'),
  SubscriptionUpdate: subscriptionUpdateSchema.openapi('SubscriptionUpdate'),
  RedriveRequest: redriveRequestSchema.openapi('RedriveRequest'),
  RedriveReply: redriveReplySchema.openapi('RedriveReply'),
  OpenApiDocument: z
    .object({ openapi: z.string(), info: z.object({}).passthrough(), paths: z.object({}).passthrough() })
    .passthrough()
    .openapi('OpenApiDocument'),
};
