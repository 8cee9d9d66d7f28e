-- Who may see a record can change without the record changing: a member joins or leaves a role, an
-- administrator flag is granted or withdrawn, a form's visible roles change, an assignment begins or
-- ends. A pull decides per caller (a record the caller may not see is a tombstone), so the records
-- whose visibility changed are stamped again and every replica pulls them anew: those who gained
-- access receive them, those who lost it receive tombstones.

-- Stamps forms again with their statuses (and, when `with_tasks`, their live tasks). A record sent
-- again keeps its version (`updated_at`): only who may see it changed.
CREATE OR REPLACE FUNCTION sync_resend_forms(form_ids uuid[], with_tasks boolean) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF form_ids IS NULL OR cardinality(form_ids) = 0 THEN
    RETURN;
  END IF;
  PERFORM set_config('orbita.resend', 'on', true);
  UPDATE forms SET sync_seq = sync_seq WHERE id = ANY (form_ids);
  UPDATE form_statuses SET sync_seq = sync_seq WHERE form_id = ANY (form_ids);
  IF with_tasks THEN
    UPDATE tasks t SET sync_seq = t.sync_seq FROM forms f
     WHERE f.id = ANY (form_ids) AND t.organization_id = f.organization_id AND t.form_id = f.id AND t.deleted_at IS NULL;
  END IF;
  PERFORM set_config('orbita.resend', 'off', true);
END $$;

CREATE OR REPLACE FUNCTION sync_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('orbita.resend', true) = 'on' THEN
    RETURN NEW;
  END IF;
  NEW.updated_at := greatest(NEW.updated_at, date_trunc('milliseconds', OLD.updated_at) + interval '1 millisecond');
  RETURN NEW;
END $$;

-- A form's visible roles changed: its statuses and tasks.
CREATE OR REPLACE FUNCTION sync_form_visibility() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sync_resend_forms(ARRAY[NEW.id], true);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS sync_form_visibility ON forms;
CREATE TRIGGER sync_form_visibility AFTER UPDATE OF visible_role_ids ON forms
  FOR EACH ROW WHEN (OLD.visible_role_ids IS DISTINCT FROM NEW.visible_role_ids) EXECUTE FUNCTION sync_form_visibility();

-- Members joined or left roles: the forms restricted to those roles, with their tasks.
CREATE OR REPLACE FUNCTION sync_role_members_visibility() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sync_resend_forms(
    ARRAY(SELECT f.id FROM forms f
           WHERE f.deleted_at IS NULL
             AND f.visible_role_ids && ARRAY(SELECT DISTINCT c.role_id FROM changed_members c)),
    true);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS sync_role_members_joined ON role_members;
CREATE TRIGGER sync_role_members_joined AFTER INSERT ON role_members REFERENCING NEW TABLE AS changed_members
  FOR EACH STATEMENT EXECUTE FUNCTION sync_role_members_visibility();
DROP TRIGGER IF EXISTS sync_role_members_left ON role_members;
CREATE TRIGGER sync_role_members_left AFTER DELETE ON role_members REFERENCING OLD TABLE AS changed_members
  FOR EACH STATEMENT EXECUTE FUNCTION sync_role_members_visibility();

-- An administrator flag changed: every restricted form of the organization, with its tasks.
CREATE OR REPLACE FUNCTION sync_admin_visibility() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sync_resend_forms(
    ARRAY(SELECT f.id FROM forms f
           WHERE f.organization_id = NEW.organization_id AND f.deleted_at IS NULL AND f.visible_role_ids <> '{}'),
    true);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS sync_admin_visibility ON users;
CREATE TRIGGER sync_admin_visibility AFTER UPDATE OF is_admin ON users
  FOR EACH ROW WHEN (OLD.is_admin IS DISTINCT FROM NEW.is_admin) EXECUTE FUNCTION sync_admin_visibility();

-- The assignees of a task on a restricted form read the form (its fields, statuses and moves):
-- an assignment that begins or ends, or a task deleted or restored, sends the form again.
CREATE OR REPLACE FUNCTION sync_resend_restricted_form_of(task uuid) RETURNS void LANGUAGE sql AS $$
  SELECT sync_resend_forms(
    ARRAY(SELECT f.id FROM tasks t JOIN forms f ON f.id = t.form_id WHERE t.id = task AND f.visible_role_ids <> '{}'),
    false);
$$;
CREATE OR REPLACE FUNCTION sync_assignment_visibility() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM sync_resend_restricted_form_of(OLD.task_id);
  ELSE
    PERFORM sync_resend_restricted_form_of(NEW.task_id);
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION sync_task_deletion_visibility() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sync_resend_restricted_form_of(NEW.id);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS sync_assignment_visibility ON task_assignees;
CREATE TRIGGER sync_assignment_visibility AFTER INSERT OR DELETE ON task_assignees
  FOR EACH ROW EXECUTE FUNCTION sync_assignment_visibility();
DROP TRIGGER IF EXISTS sync_task_deletion_visibility ON tasks;
CREATE TRIGGER sync_task_deletion_visibility AFTER UPDATE OF deleted_at ON tasks
  FOR EACH ROW WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at) EXECUTE FUNCTION sync_task_deletion_visibility();
