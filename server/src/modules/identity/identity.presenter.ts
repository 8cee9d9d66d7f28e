import { GATED_MODULES, type GatedModule } from '@shared/api/access';
import type { Organization, Role, User } from '@shared/api/identity';
import type { OrganizationRow, PresentableUser, RoleRow } from './identity.repo';

export function presentOrganization(row: OrganizationRow): Organization {
  return {
    id: row.id,
    name: row.name,
    activeSkinId: row.active_skin_id,
    health_schedule_enabled: row.health_schedule_enabled,
    billingBlocked: row.billing_blocked,
  };
}

export function presentUser(row: PresentableUser): User {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    isAdmin: row.is_admin,
    status: row.status,
    locale: row.locale,
    roleIds: row.role_ids,
    createdAt: row.created_at.toISOString(),
  };
}

export function presentRole(row: RoleRow): Role {
  return { id: row.id, name: row.name, memberIds: row.member_ids, createdAt: row.created_at.toISOString() };
}

export function presentModules(modules: readonly GatedModule[]): Record<GatedModule, boolean> {
  return Object.fromEntries(GATED_MODULES.map((module) => [module, modules.includes(module)])) as Record<
    GatedModule,
    boolean
  >;
}
