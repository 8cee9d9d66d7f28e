-- Billing: each organization's account (running balance and block threshold), its append-only
-- ledger and its payments. Amounts are integers in minor units (kopecks), never fractions.
CREATE TABLE IF NOT EXISTS billing_accounts (
  organization_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  currency text NOT NULL DEFAULT 'RUB',
  -- The ledger's sum, kept in the same transaction as every entry.
  balance bigint NOT NULL DEFAULT 0,
  -- The organization is blocked when its balance falls below this.
  threshold bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS billing_payments (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  provider text NOT NULL,
  provider_payment_id text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'canceled', 'refunded')),
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  idempotency_key text NOT NULL,
  confirmation_url text,
  return_url text,
  created_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  succeeded_at timestamptz,
  canceled_at timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS billing_payments_idempotency ON billing_payments (organization_id, idempotency_key);
CREATE UNIQUE INDEX IF NOT EXISTS billing_payments_provider_id ON billing_payments (provider, provider_payment_id);
CREATE INDEX IF NOT EXISTS billing_payments_list ON billing_payments (organization_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS billing_payments_pending ON billing_payments (created_at) WHERE status = 'pending';

CREATE TABLE IF NOT EXISTS billing_ledger (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('payment', 'charge', 'adjustment')),
  -- Signed: credits positive, debits negative.
  amount bigint NOT NULL CHECK (amount <> 0),
  currency text NOT NULL,
  balance_after bigint NOT NULL,
  payment_id uuid REFERENCES billing_payments (id),
  reason text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS billing_ledger_list ON billing_ledger (organization_id, created_at DESC, id DESC);
-- A payment is credited at most once, whatever delivers its success.
CREATE UNIQUE INDEX IF NOT EXISTS billing_ledger_payment ON billing_ledger (payment_id) WHERE kind = 'payment';
