import type { ClientList, ClientSecrets, ClientView, RegisteredClient } from '../auth/clients';
import type { AuthorizationServerMetadata } from '../auth/authorization-server-metadata';
import type { TokenResponse } from '../auth/oauth';
import type { LocationEventDelivery } from '../events/webhooks';
import type { ExportAccepted, ExportListReply, ExportNotification, ExportStatusReply } from '../resources/exports';
import type { AddressGroup, AddressGroupList, LocationGroup, LocationGroupList } from '../resources/groups';
import type { ImportReport } from '../resources/imports';
import type { Location, LocationInput } from '../resources/location';
import { csvRecord, LOCATION_CSV_COLUMNS, locationCsvRecord } from '../resources/location-csv';
import type { LocationList } from '../resources/read-queries';
import type { StatisticsResponse } from '../resources/statistics';
import type { Delivery, DeliveryDetail, DeliveryList, Endpoint } from '../resources/webhook-deliveries';

/**
 * One example of every body of the API, consistent with each other (the same ids throughout). The OpenAPI document
 * shows them; the contracts' specs use `exampleLocation` as their complete Location, and a spec validates each example
 * against its schema.
 */
export const EXAMPLE_IDS = {
  location: '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11',
  locationGroup: '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50',
  addressGroup: '7c8d9e0f-1a2b-4c3d-8e4f-5a6b7c8d9e0f',
  export: '9f1c2b3a-4d5e-4f60-8a7b-1c2d3e4f5a6b',
  client: '3d4e5f60-7a8b-4c9d-9e0f-1a2b3c4d5e6f',
  event: 'e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b',
  delivery: 'd1e2f3a4-b5c6-4d7e-8f9a-0b1c2d3e4f5a',
} as const;

const BASE_URL = 'https://api.example.net';

/** The operator's write body: every field of a Location except id, createdAt and updatedAt. */
export const exampleLocationInput: LocationInput = {
  notes: 'Gate code at the front desk',
  locationGroupId: EXAMPLE_IDS.locationGroup,
  geography: { country: 'US', region: 'CO', locality: 'Denver', postalCode: '80202' },
  address: {
    streetNumber: '1600',
    streetName: 'Glenarm',
    streetDirection: 'N',
    streetType: 'PLACE',
    streetSuffix: 'ROAD',
    subunitType: 'APT',
    subunitIdentifier: '4B',
    addressGroupId: EXAMPLE_IDS.addressGroup,
  },
  coordinates: { latitude: 39.7447, longitude: -104.9903 },
  fiberAccessDetails: {
    circuitId: 'CIR-1001',
    fda: 'FDA-12',
    fdh: 'FDH-3',
    splitterPort: '1-4',
    layer2AccessProtocol: 'XGS-PON',
    dropStatus: 'UNDERGROUND_COMPLETE',
    serviceability: { status: 'ACTIVE', availableDate: '2024-02-29' },
  },
  customFields: { tier: 'gold', floors: 12, mdu: true, tags: ['fiber', 2, false] },
};

/** A complete Location using every field. */
export const exampleLocation: Location = {
  id: EXAMPLE_IDS.location,
  createdAt: '2024-01-15T10:00:00Z',
  updatedAt: '2024-03-01T08:30:00.250Z',
  ...exampleLocationInput,
};

export const exampleLocationList: LocationList = {
  locations: [exampleLocation],
  pagination: { limit: 100, offset: 0, total: 1 },
};

export const exampleLocationGroup: LocationGroup = {
  id: EXAMPLE_IDS.locationGroup,
  name: 'Denver phase 2',
  type: 'OTHER',
};
export const exampleLocationGroupList: LocationGroupList = {
  locationGroups: [exampleLocationGroup],
  pagination: { limit: 100, offset: 0, total: 1 },
};
export const exampleAddressGroup: AddressGroup = {
  id: EXAMPLE_IDS.addressGroup,
  name: 'Glenarm Place apartments',
  type: 'MDU_COMPLEX',
};
export const exampleAddressGroupList: AddressGroupList = {
  addressGroups: [exampleAddressGroup],
  pagination: { limit: 100, offset: 0, total: 1 },
};

export const exampleStatistics: StatisticsResponse = {
  totalCount: 1250,
  countByStatus: { PLANNED: 200, CONSTRUCTION: 50, ACTIVE: 900, INACTIVE: 40, CANCELLED: 10, RETIRED: 50 },
  countByType: {
    addressOnly: 100,
    coordinatesOnly: 50,
    addressAndCoordinates: 1100,
    grouped: 800,
    standalone: 450,
  },
  queryTimestamp: '2024-03-01T09:00:00Z',
};

/** An NDJSON import file (application/x-ndjson): one Location per line. */
export const exampleImportNdjson = `${JSON.stringify(exampleLocation)}\n`;

/**
 * A CSV import file (text/csv): the header the import checks (`LOCATION_CSV_COLUMNS`, as the CSV export writes it),
 * then the example Location as the export writes it, CRLF line breaks.
 */
export const exampleImportCsv = csvRecord(LOCATION_CSV_COLUMNS) + locationCsvRecord(exampleLocation);

export const exampleImportReport: ImportReport = {
  mode: 'merge',
  rowsRead: 3,
  created: 1,
  updated: 1,
  unchanged: 0,
  rejected: 1,
  retired: 0,
  rejections: [
    {
      line: 3,
      code: 'MISSING_LOCATION_DATA',
      message: 'A location needs an address or coordinates',
    },
  ],
  rejectionsOmitted: 0,
};

export const exampleExportAccepted: ExportAccepted = {
  requestId: EXAMPLE_IDS.export,
  status: 'PENDING',
  message: 'Export request accepted',
};

const exportRequestFields = {
  requestId: EXAMPLE_IDS.export,
  format: 'json',
  createdAt: '2024-03-01T09:00:00Z',
} as const;

export const exampleExportCompleted: ExportStatusReply = {
  ...exportRequestFields,
  status: 'COMPLETED',
  exportUrl: `${BASE_URL.replace('api.', 'exports.')}/location-exports/${EXAMPLE_IDS.export}.json?X-Amz-Expires=86400&X-Amz-Signature=5d41402abc4b2a76b9719d911017c592`,
  downloadExpiresAt: '2024-03-02T09:00:05Z',
  exportTimestamp: '2024-03-01T09:00:01Z',
  totalCount: 1250,
  sha256: '9b74c9897bac770ffc029102a200c5de9b74c9897bac770ffc029102a200c5de',
  sizeBytes: 1048576,
};
export const exampleExportPending: ExportStatusReply = {
  ...exportRequestFields,
  status: 'PENDING',
  progress: { written: 500, total: 1250 },
};
export const exampleExportFailed: ExportStatusReply = {
  ...exportRequestFields,
  status: 'FAILED',
  error: { code: 'EXPORT_GENERATION_FAILED', message: 'The export could not be generated' },
};
export const exampleExportList: ExportListReply = {
  exports: [exampleExportCompleted],
  pagination: { limit: 100, offset: 0, total: 1 },
};

export const exampleExportNotification: ExportNotification = {
  requestId: EXAMPLE_IDS.export,
  status: 'COMPLETED',
  exportUrl: (exampleExportCompleted as { exportUrl: string }).exportUrl,
  downloadExpiresAt: '2024-03-02T09:00:05Z',
  exportTimestamp: '2024-03-01T09:00:01Z',
  totalCount: 1250,
};

export const exampleLocationEvent: LocationEventDelivery = {
  event: {
    id: EXAMPLE_IDS.event,
    type: 'LOCATION_UPDATED',
    timestamp: '2024-03-01T08:30:00.250Z',
    source: 'location-exchange',
    data: exampleLocation,
    modifiedFields: { fiberAccessDetails: { serviceability: { status: 'ACTIVE' } } },
    version: 4,
  },
};

export const exampleTokenResponse: TokenResponse = {
  access_token: 'eyJhbGciOiJFUzI1NiIsImtpZCI6IjIwMjQtMDMifQ.eyJzdWIiOiIzZDRlNWY2MCJ9.c2lnbmF0dXJl',
  token_type: 'Bearer',
  expires_in: 3600,
  scope: 'locations:read',
};

export const exampleAuthorizationServerMetadata: AuthorizationServerMetadata = {
  issuer: BASE_URL,
  token_endpoint: `${BASE_URL}/oauth/token`,
  jwks_uri: `${BASE_URL}/.well-known/jwks.json`,
  grant_types_supported: ['client_credentials'],
  token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
  scopes_supported: ['locations:read', 'locations:write', 'auth:admin', 'webhooks:admin'],
  response_types_supported: [],
  service_documentation: `${BASE_URL}/docs`,
};

export const exampleJwks = {
  keys: [
    {
      kty: 'EC',
      crv: 'P-256',
      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
      kid: '2024-03',
      alg: 'ES256',
      use: 'sig',
    },
  ],
};

export const exampleClient: ClientView = {
  clientId: EXAMPLE_IDS.client,
  name: 'Example Fiber RSP',
  kind: 'RSP',
  scopes: ['locations:read'],
  enabled: true,
  webhookUrl: 'https://rsp.example.com/hooks',
  createdAt: '2024-01-02T12:00:00Z',
  updatedAt: '2024-01-02T12:00:00Z',
};
export const exampleClientSecrets: ClientSecrets = {
  clientId: EXAMPLE_IDS.client,
  clientSecret: 'cs_2b7e151628aed2a6abf7158809cf4f3c',
  webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
};
export const exampleRegisteredClient: RegisteredClient = { ...exampleClient, ...exampleClientSecrets };
export const exampleClientList: ClientList = {
  clients: [exampleClient],
  pagination: { limit: 100, offset: 0, total: 1 },
};

export const exampleDelivery: Delivery = {
  id: EXAMPLE_IDS.delivery,
  clientId: EXAMPLE_IDS.client,
  eventId: EXAMPLE_IDS.event,
  eventType: 'LOCATION_UPDATED',
  status: 'DELIVERED',
  attempts: 2,
  createdAt: '2024-03-01T08:30:01Z',
  lastAttemptAt: '2024-03-01T08:30:07Z',
  lastStatusCode: 200,
  finishedAt: '2024-03-01T08:30:07Z',
};
export const exampleDeliveryDetail: DeliveryDetail = {
  ...exampleDelivery,
  attemptLog: [
    {
      attempt: 1,
      attemptedAt: '2024-03-01T08:30:01Z',
      url: 'https://rsp.example.com/hooks/locations/events',
      statusCode: 503,
      latencyMs: 41,
      responseExcerpt: 'Service Unavailable',
    },
    {
      attempt: 2,
      attemptedAt: '2024-03-01T08:30:07Z',
      url: 'https://rsp.example.com/hooks/locations/events',
      statusCode: 200,
      latencyMs: 38,
    },
  ],
};
export const exampleDeliveryList: DeliveryList = {
  deliveries: [exampleDelivery],
  pagination: { limit: 100, offset: 0, total: 1 },
};
export const exampleEndpoint: Endpoint = {
  clientId: EXAMPLE_IDS.client,
  webhookUrl: 'https://rsp.example.com/hooks',
  enabled: true,
  state: 'HEALTHY',
  consecutiveFailures: 0,
  eventTypes: ['LOCATION_CREATED', 'LOCATION_UPDATED', 'EXPORT_COMPLETED', 'EXPORT_FAILED'],
  pendingDeliveries: 0,
};
