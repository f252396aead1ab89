import type { Command } from 'commander';

/** PLACEHOLDER: `voxctl admin users create` (owned by the service-foundation workstream). */
export function registerAdmin(_program: Command): void {}
