-- The mock payment provider's own side: what its confirmation page decided for each payment, which
-- it reports as a provider's API would (status polls) after sending its signed webhook.
CREATE TABLE IF NOT EXISTS billing_mock_payments (
  provider_payment_id text PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'canceled')),
  amount bigint NOT NULL,
  currency text NOT NULL,
  return_url text,
  created_at timestamptz NOT NULL DEFAULT now()
);
