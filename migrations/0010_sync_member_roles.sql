-- A user's document on replicas lists their roles (`roleIds`): a member joining or leaving a role
-- changes the user's document as well as the role's. The user is stamped again, keeping
-- `updated_at` (their own record did not change).
CREATE OR REPLACE FUNCTION sync_touch_role() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE roles SET updated_at = now() WHERE id = COALESCE(NEW.role_id, OLD.role_id);
  UPDATE users SET sync_seq = sync_seq WHERE id = COALESCE(NEW.user_id, OLD.user_id);
  RETURN NULL;
END $$;
