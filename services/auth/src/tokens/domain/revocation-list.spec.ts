import { revocationHorizon, toRevocationList } from './revocation-list';

describe('the revocation list', () => {
  it('lists cut-offs in whole seconds (rounded up), clients and keys in a stable order', () => {
    const b = '9b1d7c3e-2f4a-4b6c-8d0e-1a2b3c4d5e6f';
    const a = '3f6c2a9e-8d1b-4c1e-9a57-0b4b6a1d2c3e';
    expect(
      toRevocationList(
        [
          { clientId: b, tokensIssuedBefore: new Date('2025-01-01T00:00:11.000Z') },
          { clientId: a, tokensIssuedBefore: new Date('2025-01-01T00:00:11.001Z') },
        ],
        ['kid-b', 'kid-a'],
      ),
    ).toEqual({
      clients: [
        { clientId: a, tokensIssuedBefore: 1735689612 },
        { clientId: b, tokensIssuedBefore: 1735689611 },
      ],
      signingKeys: ['kid-a', 'kid-b'],
    });
  });

  it('keeps revocations for the longest token lifetime plus the clock tolerance', () => {
    const now = new Date('2025-01-02T00:00:00.000Z');
    expect(revocationHorizon(now)).toEqual(new Date('2024-12-31T23:59:55.000Z'));
  });
});
