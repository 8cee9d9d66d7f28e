import {
  changedSince,
  checkpointParams,
  nextCheckpoint,
  type SyncSource,
  syncColumns,
  tombstone,
} from '../../platform/sync/sync-source';

/** Colleagues, read-only on replicas (no secrets: the columns are chosen here). */
export const usersSyncSource: SyncSource = {
  collection: 'users',
  async pull(db, auth, checkpoint, limit) {
    const { rows } = await db.query<{
      id: string;
      email: string;
      name: string;
      is_admin: boolean;
      status: string;
      locale: string;
      role_ids: string[];
      sync_xid: string;
      sync_seq: string;
    }>(
      `SELECT u.id, u.email, u.name, u.is_admin, u.status, u.locale,
              ARRAY(SELECT rm.role_id FROM role_members rm WHERE rm.user_id = u.id ORDER BY rm.role_id)::text[] AS role_ids,
              ${syncColumns('u')}
         FROM users u WHERE u.organization_id = $1 AND ${changedSince('u', 2, 3)} ORDER BY u.sync_xid, u.sync_seq LIMIT $4`,
      [auth.organizationId, ...checkpointParams(checkpoint), limit],
    );
    return {
      documents: rows.map((row) => ({
        id: row.id,
        email: row.email,
        name: row.name,
        isAdmin: row.is_admin,
        status: row.status,
        locale: row.locale,
        roleIds: row.role_ids,
        _deleted: false,
      })),
      checkpoint: nextCheckpoint(rows, checkpoint),
    };
  },
};

/** Roles with their members, read-only on replicas; deleted roles arrive as tombstones. */
export const rolesSyncSource: SyncSource = {
  collection: 'roles',
  async pull(db, auth, checkpoint, limit) {
    const { rows } = await db.query<{
      id: string;
      name: string | null;
      member_ids: string[] | null;
      sync_xid: string;
      sync_seq: string;
    }>(
      `SELECT * FROM (
         SELECT r.id, r.name, ARRAY(SELECT rm.user_id FROM role_members rm WHERE rm.role_id = r.id ORDER BY rm.user_id)::text[] AS member_ids,
                r.sync_xid, r.sync_seq
           FROM roles r WHERE r.organization_id = $1 AND ${changedSince('r', 2, 3)}
         UNION ALL
         SELECT d.document_id AS id, NULL, NULL, d.sync_xid, d.sync_seq
           FROM sync_tombstones d WHERE d.organization_id = $1 AND d.collection = 'roles' AND ${changedSince('d', 2, 3)}
       ) changes ORDER BY sync_xid, sync_seq LIMIT $4`,
      [auth.organizationId, ...checkpointParams(checkpoint), limit],
    );
    const out = rows.map((row) => ({ ...row, sync_xid: String(row.sync_xid), sync_seq: String(row.sync_seq) }));
    return {
      documents: out.map((row) =>
        row.name === null
          ? tombstone(row.id)
          : { id: row.id, name: row.name, memberIds: row.member_ids ?? [], _deleted: false },
      ),
      checkpoint: nextCheckpoint(out, checkpoint),
    };
  },
};
