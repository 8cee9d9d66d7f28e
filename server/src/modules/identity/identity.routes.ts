import { identityApi } from '@shared/api/identity';
import type { Request } from 'express';
import { defineRoute } from '../../platform/http/routes';
import * as auth from './auth.service';
import * as organization from './organization.service';
import { endSessionFamily, refreshSession } from './sessions.service';
import * as users from './users.service';

function clientInfo(req: Request) {
  return { userAgent: req.get('user-agent')?.slice(0, 500) ?? null, ipAddress: req.ip ?? null };
}

const noStore = { 'Cache-Control': 'no-store' };

/** Sign-up, sign-in, token rotation, sign-out, password reset and the current user. */
export function authRoutes(deps: auth.AuthDeps) {
  return [
    defineRoute({
      ...identityApi.register,
      access: 'public',
      handler: async ({ body, req }) => ({
        status: 201,
        body: await auth.register(deps, body, clientInfo(req)),
        headers: noStore,
      }),
    }),
    defineRoute({
      ...identityApi.login,
      access: 'public',
      handler: async ({ body, req }) => ({
        status: 200,
        body: await auth.login(deps, body, clientInfo(req)),
        headers: noStore,
      }),
    }),
    defineRoute({
      ...identityApi.refreshTokens,
      access: 'public',
      handler: async ({ body, req }) => ({
        status: 200,
        body: await refreshSession(deps, body.refreshToken, clientInfo(req)),
        headers: noStore,
      }),
    }),
    defineRoute({
      ...identityApi.logout,
      access: 'public',
      handler: async ({ body }) => {
        await endSessionFamily(deps.db, body);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...identityApi.forgotPassword,
      access: 'public',
      handler: async ({ body }) => {
        await auth.forgotPassword(deps, body.email);
        return {
          status: 202,
          body: { accepted: true as const, message: 'If an account uses this address, a reset link was sent to it.' },
        };
      },
    }),
    defineRoute({
      ...identityApi.resetPassword,
      access: 'public',
      handler: async ({ body }) => {
        await auth.resetPassword(deps, body.token, body.password);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...identityApi.getCurrentUser,
      handler: async ({ auth: caller }) => ({ status: 200, body: await auth.currentUser(deps, caller) }),
    }),
  ];
}

/** The organization, its users and roles, and the module access matrix. */
export function organizationRoutes(deps: auth.AuthDeps) {
  return [
    defineRoute({
      ...identityApi.getOrganization,
      handler: async ({ auth: caller }) => {
        return { status: 200, body: await organization.getOrganization(deps, caller) };
      },
    }),
    defineRoute({
      ...identityApi.updateOrganization,
      access: 'admin',
      handler: async ({ auth: caller, body }) => {
        return { status: 200, body: await organization.updateOrganization(deps, caller, body) };
      },
    }),
    defineRoute({
      ...identityApi.listUsers,
      handler: async ({ auth: caller, query }) => ({ status: 200, body: await users.listUsers(deps, caller, query) }),
    }),
    defineRoute({
      ...identityApi.inviteUser,
      access: 'admin',
      handler: async ({ auth: caller, body }) => ({ status: 201, body: await users.inviteUser(deps, caller, body) }),
    }),
    defineRoute({
      ...identityApi.getUser,
      handler: async ({ auth: caller, params }) => ({
        status: 200,
        body: await users.getUser(deps, caller, params.userId),
      }),
    }),
    defineRoute({
      ...identityApi.updateUser,
      handler: async ({ auth: caller, params, body }) => ({
        status: 200,
        body: await users.updateUser(deps, caller, params.userId, body),
      }),
    }),
    defineRoute({
      ...identityApi.resendInvitation,
      access: 'admin',
      handler: async ({ auth: caller, params }) => {
        await users.resendInvitation(deps, caller, params.userId);
        return { status: 202, body: { accepted: true as const, message: 'A new invitation was sent.' } };
      },
    }),
    defineRoute({
      ...identityApi.listRoles,
      handler: async ({ auth: caller }) => ({ status: 200, body: await users.listRoles(deps, caller) }),
    }),
    defineRoute({
      ...identityApi.createRole,
      access: 'admin',
      handler: async ({ auth: caller, body }) => ({ status: 201, body: await users.createRole(deps, caller, body) }),
    }),
    defineRoute({
      ...identityApi.getRole,
      handler: async ({ auth: caller, params }) => ({
        status: 200,
        body: await users.getRole(deps, caller, params.roleId),
      }),
    }),
    defineRoute({
      ...identityApi.renameRole,
      access: 'admin',
      handler: async ({ auth: caller, params, body }) => ({
        status: 200,
        body: await users.renameRole(deps, caller, params.roleId, body.name),
      }),
    }),
    defineRoute({
      ...identityApi.deleteRole,
      access: 'admin',
      handler: async ({ auth: caller, params }) => {
        await users.deleteRole(deps, caller, params.roleId);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...identityApi.setRoleMembers,
      access: 'admin',
      handler: async ({ auth: caller, params, body }) => ({
        status: 200,
        body: await users.setRoleMembers(deps, caller, params.roleId, body.userIds),
      }),
    }),
    defineRoute({
      ...identityApi.getModuleAccess,
      access: 'admin',
      handler: async ({ auth: caller }) => ({ status: 200, body: await users.moduleAccessMatrix(deps, caller) }),
    }),
    defineRoute({
      ...identityApi.updateModuleAccess,
      access: 'admin',
      handler: async ({ auth: caller, body }) => ({
        status: 200,
        body: await users.updateModuleAccess(deps, caller, body),
      }),
    }),
  ];
}
