// The rails tests wait on conditions, never for fixed times.
export { until } from '@tapline/sync-server/testing';
