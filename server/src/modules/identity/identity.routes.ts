import {
  Accepted,
  CreateRoleRequest,
  ForgotPasswordRequest,
  InviteUserRequest,
  ListQuery,
  LoginRequest,
  LogoutRequest,
  Me,
  ModuleAccessMatrix,
  Organization,
  RefreshTokenRequest,
  RegisterRequest,
  ResetPasswordRequest,
  Role,
  RoleList,
  SetRoleMembersRequest,
  TokenResponse,
  UpdateModuleAccessRequest,
  UpdateOrganizationRequest,
  UpdateRoleRequest,
  UpdateUserRequest,
  User,
  UserList,
} from '@shared/api/identity';
import type { Request } from 'express';
import { z } from 'zod';
import { defineRoute } from '../../platform/http/routes';
import * as auth from './auth.service';
import * as organization from './organization.service';
import { endSessionFamily, refreshSession } from './sessions.service';
import * as users from './users.service';

const UserParams = z.object({ userId: z.uuid() });
const RoleParams = z.object({ roleId: z.uuid() });

function clientInfo(req: Request) {
  return { userAgent: req.get('user-agent')?.slice(0, 500) ?? null, ipAddress: req.ip ?? null };
}

const noStore = { 'Cache-Control': 'no-store' };

/** Sign-up, sign-in, token rotation, sign-out, password reset and the current user. */
export function authRoutes(deps: auth.AuthDeps) {
  return [
    defineRoute({
      method: 'post',
      path: '/api/auth/register',
      access: 'public',
      operationId: 'register',
      summary: 'Create an organization and its first administrator, signed in',
      tags: ['auth'],
      request: { body: RegisterRequest },
      responses: { 201: { description: 'Signed in as the new administrator', schema: TokenResponse } },
      handler: async ({ body, req }) => ({
        status: 201,
        body: await auth.register(deps, body, clientInfo(req)),
        headers: noStore,
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/auth/login',
      access: 'public',
      operationId: 'login',
      summary: 'Sign in with e-mail and password',
      description: 'Repeated failures lock the account and the address for 15 minutes (429 with Retry-After).',
      tags: ['auth'],
      request: { body: LoginRequest },
      responses: { 200: { description: 'Signed in', schema: TokenResponse } },
      handler: async ({ body, req }) => ({
        status: 200,
        body: await auth.login(deps, body, clientInfo(req)),
        headers: noStore,
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/auth/refresh',
      access: 'public',
      operationId: 'refreshTokens',
      summary: 'Exchange a refresh token for new tokens (rotation)',
      description:
        'The presented token is replaced. Presenting an already rotated token revokes all tokens of its session family, ' +
        'except the immediately previous one within REFRESH_GRACE_SECONDS of its rotation. ' +
        'A refresh token of a deactivated account is answered 403 account_deactivated.',
      tags: ['auth'],
      request: { body: RefreshTokenRequest },
      responses: { 200: { description: 'New tokens', schema: TokenResponse } },
      handler: async ({ body, req }) => ({
        status: 200,
        body: await refreshSession(deps, body.refreshToken, clientInfo(req)),
        headers: noStore,
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/auth/logout',
      access: 'public',
      operationId: 'logout',
      summary: 'Sign out: revoke the session family of a refresh token (or of its SHA-256)',
      tags: ['auth'],
      request: { body: LogoutRequest },
      responses: { 204: { description: 'Signed out (also for unknown tokens)' } },
      handler: async ({ body }) => {
        await endSessionFamily(deps.db, body);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/auth/forgot-password',
      access: 'public',
      operationId: 'forgotPassword',
      summary: 'Send a password-reset link by e-mail',
      description: 'Answers the same whether or not the address has an account.',
      tags: ['auth'],
      request: { body: ForgotPasswordRequest },
      responses: { 202: { description: 'If the account exists, a link is on its way', schema: Accepted } },
      handler: async ({ body }) => {
        await auth.forgotPassword(deps, body.email);
        return {
          status: 202,
          body: { accepted: true as const, message: 'If an account uses this address, a reset link was sent to it.' },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/auth/reset-password',
      access: 'public',
      operationId: 'resetPassword',
      summary: 'Set a new password with a reset or invitation token',
      description: 'The token works once. Every session of the user ends.',
      tags: ['auth'],
      request: { body: ResetPasswordRequest },
      responses: { 204: { description: 'Password set; sign in with it' } },
      handler: async ({ body }) => {
        await auth.resetPassword(deps, body.token, body.password);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/auth/me',
      operationId: 'getCurrentUser',
      summary: 'The signed-in user, their roles and modules, and the organization',
      tags: ['auth'],
      responses: { 200: { description: 'Current user', schema: Me } },
      handler: async ({ auth: caller }) => ({ status: 200, body: await auth.currentUser(deps, caller) }),
    }),
  ];
}

/** The organization, its users and roles, and the module access matrix. */
export function organizationRoutes(deps: auth.AuthDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/organization',
      operationId: 'getOrganization',
      summary: 'The caller’s organization',
      tags: ['organization'],
      responses: { 200: { description: 'Organization', schema: Organization } },
      handler: async ({ auth: caller }) => {
        return { status: 200, body: await organization.getOrganization(deps, caller) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/api/organization',
      access: 'admin',
      operationId: 'updateOrganization',
      summary: 'Rename the organization or switch the health-schedule module',
      tags: ['organization'],
      request: { body: UpdateOrganizationRequest },
      responses: { 200: { description: 'Organization', schema: Organization } },
      handler: async ({ auth: caller, body }) => {
        return { status: 200, body: await organization.updateOrganization(deps, caller, body) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/users',
      operationId: 'listUsers',
      summary: 'Users of the organization, by name',
      tags: ['users'],
      request: { query: ListQuery },
      responses: { 200: { description: 'A page of users', schema: UserList } },
      handler: async ({ auth: caller, query }) => ({ status: 200, body: await users.listUsers(deps, caller, query) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/users',
      access: 'admin',
      operationId: 'inviteUser',
      summary: 'Invite a colleague (an e-mail with a set-password link)',
      tags: ['users'],
      request: { body: InviteUserRequest },
      responses: { 201: { description: 'The invited user', schema: User } },
      handler: async ({ auth: caller, body }) => ({ status: 201, body: await users.inviteUser(deps, caller, body) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/users/:userId',
      operationId: 'getUser',
      summary: 'One user',
      tags: ['users'],
      request: { params: UserParams },
      responses: { 200: { description: 'User', schema: User } },
      handler: async ({ auth: caller, params }) => ({
        status: 200,
        body: await users.getUser(deps, caller, params.userId),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/api/users/:userId',
      operationId: 'updateUser',
      summary: 'Edit a user (own name and language; administrators: anything, incl. deactivation)',
      tags: ['users'],
      request: { params: UserParams, body: UpdateUserRequest },
      responses: { 200: { description: 'User', schema: User } },
      handler: async ({ auth: caller, params, body }) => ({
        status: 200,
        body: await users.updateUser(deps, caller, params.userId, body),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/users/:userId/invitation',
      access: 'admin',
      operationId: 'resendInvitation',
      summary: 'Send a new invitation link to a user who has not joined',
      tags: ['users'],
      request: { params: UserParams },
      responses: { 202: { description: 'Sent', schema: Accepted } },
      handler: async ({ auth: caller, params }) => {
        await users.resendInvitation(deps, caller, params.userId);
        return { status: 202, body: { accepted: true as const, message: 'A new invitation was sent.' } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/roles',
      operationId: 'listRoles',
      summary: 'Roles of the organization (every member may read them)',
      tags: ['roles'],
      responses: { 200: { description: 'Roles', schema: RoleList } },
      handler: async ({ auth: caller }) => ({ status: 200, body: await users.listRoles(deps, caller) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/roles',
      access: 'admin',
      operationId: 'createRole',
      summary: 'Create a role',
      tags: ['roles'],
      request: { body: CreateRoleRequest },
      responses: { 201: { description: 'Role', schema: Role } },
      handler: async ({ auth: caller, body }) => ({ status: 201, body: await users.createRole(deps, caller, body) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/roles/:roleId',
      operationId: 'getRole',
      summary: 'One role with its members',
      tags: ['roles'],
      request: { params: RoleParams },
      responses: { 200: { description: 'Role', schema: Role } },
      handler: async ({ auth: caller, params }) => ({
        status: 200,
        body: await users.getRole(deps, caller, params.roleId),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/api/roles/:roleId',
      access: 'admin',
      operationId: 'renameRole',
      summary: 'Rename a role',
      tags: ['roles'],
      request: { params: RoleParams, body: UpdateRoleRequest },
      responses: { 200: { description: 'Role', schema: Role } },
      handler: async ({ auth: caller, params, body }) => ({
        status: 200,
        body: await users.renameRole(deps, caller, params.roleId, body.name),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/roles/:roleId',
      access: 'admin',
      operationId: 'deleteRole',
      summary: 'Delete a role (its members keep their accounts)',
      tags: ['roles'],
      request: { params: RoleParams },
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ auth: caller, params }) => {
        await users.deleteRole(deps, caller, params.roleId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/api/roles/:roleId/members',
      access: 'admin',
      operationId: 'setRoleMembers',
      summary: 'Set the members of a role',
      tags: ['roles'],
      request: { params: RoleParams, body: SetRoleMembersRequest },
      responses: { 200: { description: 'Role', schema: Role } },
      handler: async ({ auth: caller, params, body }) => ({
        status: 200,
        body: await users.setRoleMembers(deps, caller, params.roleId, body.userIds),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/module-access',
      access: 'admin',
      operationId: 'getModuleAccess',
      summary: 'The GPS / Finance access matrix of users and roles',
      tags: ['users'],
      responses: { 200: { description: 'Matrix', schema: ModuleAccessMatrix } },
      handler: async ({ auth: caller }) => ({ status: 200, body: await users.moduleAccessMatrix(deps, caller) }),
    }),
    defineRoute({
      method: 'put',
      path: '/api/module-access',
      access: 'admin',
      operationId: 'updateModuleAccess',
      summary: 'Set the modules granted to the listed users and roles',
      tags: ['users'],
      request: { body: UpdateModuleAccessRequest },
      responses: { 200: { description: 'Matrix', schema: ModuleAccessMatrix } },
      handler: async ({ auth: caller, body }) => ({
        status: 200,
        body: await users.updateModuleAccess(deps, caller, body),
      }),
    }),
  ];
}
