// @tapline/hardware/testing: the fakes tests drive (a clock they move, a network printer on a
// loopback port, a process they kill and wait for). Tests only.
export { killAndAwaitDeath } from './dead-process.ts';
export { FakeNetworkPrinter } from './fake-network-printer.ts';
export { ManualClock } from './manual-clock.ts';
