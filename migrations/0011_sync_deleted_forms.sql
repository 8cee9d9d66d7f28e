-- Replicas hold deleted forms too (marked deleted): their tasks stay readable. A change of roles
-- or of the administrator flag sends deleted restricted forms and their tasks again as well.
CREATE OR REPLACE FUNCTION sync_role_members_visibility() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sync_resend_forms(
    ARRAY(SELECT f.id FROM forms f
           WHERE f.visible_role_ids && ARRAY(SELECT DISTINCT c.role_id FROM changed_members c)),
    true);
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION sync_admin_visibility() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sync_resend_forms(
    ARRAY(SELECT f.id FROM forms f WHERE f.organization_id = NEW.organization_id AND f.visible_role_ids <> '{}'),
    true);
  RETURN NULL;
END $$;

-- Once, on upgrade: replicas synced before these rules may hold restricted forms' tasks their
-- users lost access to, lack forms of tasks assigned to them, and hold deleted forms as
-- tombstones. Every restricted form is sent again with its tasks, and every deleted form.
SELECT sync_resend_forms(ARRAY(SELECT id FROM forms WHERE visible_role_ids <> '{}'), true);
SELECT sync_resend_forms(ARRAY(SELECT id FROM forms WHERE deleted_at IS NOT NULL), false);
