import { contractEvent } from './contract-event';

describe('contractEvent', () => {
  const fields = {
    id: '0b8f3a55-3f5e-4c9a-8d61-2a9f6f1c0e77',
    timestamp: '2026-11-24T05:00:00.000Z',
    source: 'webhook-dispatcher',
    data: {
      clientId: 'rsp-acme',
      url: 'https://hooks.acme.example/lx/locations/events',
      reason: 'HTTP 410 Gone at 2026-11-24T05:00:00.000Z',
      disabledAt: '2026-11-24T05:00:00.000Z',
    },
  };

  it('given fields that match the contract of the type, then the event in the envelope order of the contract', () => {
    const event = contractEvent('WEBHOOK_ENDPOINT_DISABLED', fields);
    expect(event).toEqual({ ...fields, type: 'WEBHOOK_ENDPOINT_DISABLED' });
    expect(Object.keys(event)).toEqual(['id', 'type', 'timestamp', 'source', 'data']);
  });

  it('given data outside the contract, then it throws naming the type and the fields, not the values', () => {
    const data = { ...fields.data, url: 'not a URL with secret-value' };
    expect(() => contractEvent('WEBHOOK_ENDPOINT_DISABLED', { ...fields, data })).toThrow(
      /^WEBHOOK_ENDPOINT_DISABLED event does not match its contract: .*data\.url/,
    );
    expect(() => contractEvent('WEBHOOK_ENDPOINT_DISABLED', { ...fields, data })).not.toThrow(/secret-value/);
  });
});
