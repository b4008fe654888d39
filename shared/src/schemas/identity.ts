import { Type } from 'typebox';
import { Destination } from './provisioning.ts';
import { RailName } from './fx.ts';

export const PayIdentity = Type.Object({
  handle: Type.String(),
  displayName: Type.Union([Type.String(), Type.Null()]),
  country: Type.String(),
  currency: Type.String({ description: 'The wallet\'s currency' }),
  preferredRail: Type.Union([Type.String(), Type.Null()]),
  destinations: Type.Array(Destination),
});

export const UpdateDestinationsBody = Type.Object({
  destinations: Type.Array(Destination, { maxItems: 20 }),
  preferredRail: Type.Optional(Type.Union([RailName, Type.Null()])),
});
