-- Bulk application of a delegation to the absent user's open tasks: one row per delegation, the
-- generation bumped whenever the delegation changes who or what it covers (older runs then stop).
CREATE TABLE IF NOT EXISTS delegation_applications (
  delegation_id uuid PRIMARY KEY REFERENCES user_delegations (id) ON DELETE CASCADE,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  generation integer NOT NULL DEFAULT 1,
  state text NOT NULL DEFAULT 'scheduled' CHECK (state IN ('scheduled', 'running', 'done')),
  applied integer NOT NULL DEFAULT 0,
  total integer,
  -- The last task done (tasks are taken in id order): where a resumed run goes on.
  last_task_id uuid,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- When an absent assignee's review of a task becomes due: the end of the absence that put a substitute
-- beside them (moved earlier when the absence is cut short); null: at once.
ALTER TABLE task_assignees ADD COLUMN IF NOT EXISTS review_after timestamptz;
