// The local fake of Safaricom Daraja (M-Pesa): see README.md.
export { startMpesaFake } from './fake.ts';
export type { FakeCollection, FakeDelivery, FakePayout, MpesaFake, MpesaFakeOptions } from './fake.ts';
export { COLLECTION_SCENARIOS, SCENARIOS } from './scenarios.ts';
export type { CollectionScenario, PayoutScenario } from './scenarios.ts';
export { decryptCredential, makeCertificate } from './credentials.ts';
