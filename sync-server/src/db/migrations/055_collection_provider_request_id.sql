-- The provider's id of the request a collection was made with (M-Pesa Express' CheckoutRequestID),
-- kept when provider_reference later becomes what the completion names (M-Pesa's receipt number):
-- the reconciliation's status query needs the request's id, and after a restart the adapter no
-- longer remembers it. Filled from the first provider_reference a collection gets; existing rows
-- keep NULL, and the reconciliation then asks with provider_reference as before.
ALTER TABLE pos_collections ADD COLUMN provider_request_id text;
