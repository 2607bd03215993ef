import { SERVICEABILITY_STATUSES, type ServiceabilityStatus } from '@lx/contracts';
import { InvalidStatusTransitionError } from '../errors/domain-error';
import { aLocationInput } from '../testing';
import { canTransition, isTerminalStatus, serviceabilityStatusOf } from './serviceability-lifecycle';

const NON_TERMINAL: ServiceabilityStatus[] = ['PLANNED', 'CONSTRUCTION', 'ACTIVE', 'INACTIVE'];
const TERMINAL: ServiceabilityStatus[] = ['CANCELLED', 'RETIRED'];
const pairs = <A, B>(as: readonly A[], bs: readonly B[]): [A, B][] => as.flatMap((a) => bs.map((b): [A, B] => [a, b]));

describe('isTerminalStatus', () => {
  it.each(TERMINAL)('given %s, when checked, then it is terminal', (status) =>
    expect(isTerminalStatus(status)).toBe(true),
  );
  it.each(NON_TERMINAL)('given %s, when checked, then it is not terminal', (status) =>
    expect(isTerminalStatus(status)).toBe(false),
  );
});

describe('canTransition', () => {
  it.each(pairs(NON_TERMINAL, SERVICEABILITY_STATUSES))(
    'given a location in %s, when its status is set to %s, then the change is allowed',
    (from, to) => expect(canTransition(from, to)).toBe(true),
  );

  it.each(NON_TERMINAL)(
    'given a location in %s, when its serviceability is removed, then the change is allowed',
    (from) => expect(canTransition(from, undefined)).toBe(true),
  );

  it.each([...SERVICEABILITY_STATUSES, undefined])(
    'given a location without serviceability, when its status is set to %p, then the change is allowed',
    (to) => expect(canTransition(undefined, to)).toBe(true),
  );

  it.each(SERVICEABILITY_STATUSES)(
    'given a location in %s, when its status is set to the same value, then it is no transition',
    (status) => expect(canTransition(status, status)).toBe(true),
  );

  it.each(pairs(TERMINAL, SERVICEABILITY_STATUSES).filter(([from, to]) => from !== to))(
    'given a location in the terminal %s, when its status is set to %s, then the change is refused',
    (from, to) => expect(canTransition(from, to)).toBe(false),
  );

  it.each(TERMINAL)(
    'given a location in the terminal %s, when its serviceability or fiberAccessDetails is removed, then the change is refused',
    (from) => expect(canTransition(from, undefined)).toBe(false),
  );
});

describe('InvalidStatusTransitionError', () => {
  it.each(pairs(TERMINAL, SERVICEABILITY_STATUSES).filter(([from, to]) => from !== to))(
    'given the refused change from %s to %s, when reported, then its code, message and details name both',
    (from, to) =>
      expect(new InvalidStatusTransitionError(from, to)).toMatchObject({
        code: 'INVALID_STATUS_TRANSITION',
        message: `serviceability status cannot change from ${from} to ${to}`,
        details: { from, to },
      }),
  );

  it.each(TERMINAL)('given the removal of %s, when reported, then its code, message and details', (from) =>
    expect(new InvalidStatusTransitionError(from, undefined)).toMatchObject({
      code: 'INVALID_STATUS_TRANSITION',
      message: `serviceability status ${from} cannot be removed`,
      details: { from, to: null },
    }),
  );
});

describe('serviceabilityStatusOf', () => {
  it('given a location with a status, when read, then returns it', () => {
    expect(serviceabilityStatusOf(aLocationInput({ status: 'ACTIVE' }))).toBe('ACTIVE');
  });

  it.each([
    ['no fiberAccessDetails', aLocationInput()],
    ['fiberAccessDetails without serviceability', aLocationInput({ fiberAccessDetails: { fda: 'FDA-1' } })],
  ])('given a location with %s, when read, then returns undefined', (_case, location) => {
    expect(serviceabilityStatusOf(location)).toBeUndefined();
  });
});
