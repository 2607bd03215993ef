import type { LocationInput, ServiceabilityStatus } from '@lx/contracts';

/** Statuses a location never leaves: CANCELLED (build cancelled) and RETIRED (permanently removed). */
export const TERMINAL_STATUSES: ReadonlySet<ServiceabilityStatus> = new Set<ServiceabilityStatus>([
  'CANCELLED',
  'RETIRED',
]);

/** True for CANCELLED and RETIRED. */
export function isTerminalStatus(status: ServiceabilityStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

/** The serviceability status of a location, `undefined` when it has no fiberAccessDetails.serviceability. */
export function serviceabilityStatusOf(
  location: Pick<LocationInput, 'fiberAccessDetails'>,
): ServiceabilityStatus | undefined {
  return location.fiberAccessDetails?.serviceability?.status;
}

/**
 * Whether the status may move from `from` to `to` (`undefined`: no serviceability). Staying the same is not a
 * transition. Nothing leaves a terminal status: not to another status, not to the other terminal one, and not by
 * removing serviceability or fiberAccessDetails. The spec shows no other rule, and the edges of the OAF-100 lifecycle
 * diagram among PLANNED, CONSTRUCTION, ACTIVE and INACTIVE are not published, so every other move is allowed.
 */
export function canTransition(from: ServiceabilityStatus | undefined, to: ServiceabilityStatus | undefined): boolean {
  return from === to || from === undefined || !isTerminalStatus(from);
}
