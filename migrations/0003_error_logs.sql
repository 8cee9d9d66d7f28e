-- The error log: responses with status 400 or higher (except 401, health checks and the event stream),
-- identical ones within 60 seconds folded into one entry with a count. organization_id is NULL when the
-- request named no known organization (unknown routes, failed sign-ins): those entries are the operator's.
-- path is the request path without its query string (a query may hold secrets).
-- user_id has no foreign key: an entry outlives the user it names, and recording never fails on it.
CREATE TABLE IF NOT EXISTS error_logs (
  id uuid PRIMARY KEY,
  organization_id uuid REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid,
  method text NOT NULL,
  path text NOT NULL,
  status integer NOT NULL CHECK (status BETWEEN 400 AND 599),
  code text,
  message text NOT NULL,
  request_id text NOT NULL,
  count integer NOT NULL DEFAULT 1 CHECK (count > 0),
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now()
);
-- Listing (newest first, keyset by (last_seen_at, id)) and folding (recent entries) both read this index.
CREATE INDEX IF NOT EXISTS error_logs_organization_idx ON error_logs (organization_id, last_seen_at DESC, id DESC);
