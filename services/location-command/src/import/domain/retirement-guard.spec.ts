import { decideRetirement } from './retirement-guard';

describe('decideRetirement', () => {
  const plan = { wouldRetire: 10, inService: 100, maxShare: 0.1 };

  it.each([
    ['nothing to retire', { ...plan, wouldRetire: 0, inService: 0 }],
    ['nothing to retire, with a share of 0', { ...plan, wouldRetire: 0, maxShare: 0 }],
    ['exactly the share', plan],
    ['under the share', { ...plan, wouldRetire: 9 }],
    ['above the share, the number confirmed', { ...plan, wouldRetire: 60, confirmed: 60 }],
    ['everything, confirmed', { ...plan, wouldRetire: 100, confirmed: 100 }],
    ['under the share, the number confirmed', { ...plan, wouldRetire: 3, confirmed: 3 }],
    ['zero confirmed and zero to retire', { ...plan, wouldRetire: 0, confirmed: 0 }],
    ['57 of 100 with a share of 0.57 (no rounding against it)', { wouldRetire: 57, inService: 100, maxShare: 0.57 }],
    ['a share of 1 and everything', { wouldRetire: 100, inService: 100, maxShare: 1 }],
  ])('given %s, when decided, then the import retires', (_case, given) => {
    expect(decideRetirement(given)).toEqual({ retire: true });
  });

  it.each([
    ['one above the share', { ...plan, wouldRetire: 11 }, 'unconfirmed'],
    ['a share of 0 and one to retire', { ...plan, wouldRetire: 1, maxShare: 0 }, 'unconfirmed'],
    ['everything (a one-row file)', { ...plan, wouldRetire: 99 }, 'unconfirmed'],
    ['a confirmation that no longer matches', { ...plan, wouldRetire: 61, confirmed: 60 }, 'mismatch'],
    ['a confirmation under the share that does not match', { ...plan, wouldRetire: 2, confirmed: 3 }, 'mismatch'],
    ['a confirmation of 0 when some would be retired', { ...plan, wouldRetire: 1, confirmed: 0 }, 'mismatch'],
    [
      'some to retire where none was in service (written meanwhile)',
      { ...plan, wouldRetire: 2, inService: 0 },
      'unconfirmed',
    ],
    ['58 of 100 with a share of 0.57', { wouldRetire: 58, inService: 100, maxShare: 0.57 }, 'unconfirmed'],
  ])('given %s, when decided, then the import retires nothing (%s)', (_case, given, reason) => {
    expect(decideRetirement(given)).toEqual({ retire: false, reason });
  });
});
