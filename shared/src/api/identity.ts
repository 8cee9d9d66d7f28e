import { z } from 'zod';
import { GatedModule } from './access';
import { endpoint } from './endpoint';

const Email = z
  .email('Enter an e-mail address like name@example.org')
  .max(254)
  .transform((value) => value.trim().toLowerCase());
const Password = z
  .string()
  .min(8, 'The password needs at least 8 characters')
  .max(256, 'The password may have at most 256 characters');
const PersonName = z.string().trim().min(1, 'Enter a name').max(200);

export const Locale = z.enum(['ru', 'en']);

/** Tokens returned by register, login and refresh. */
export const TokenResponse = z
  .object({
    accessToken: z.string().meta({ description: 'JWT for `Authorization: Bearer`' }),
    refreshToken: z.string().meta({ description: 'Opaque; exchange at POST /api/auth/refresh. Shown once.' }),
    expiresIn: z.number().int().meta({ description: 'Seconds the access token lives' }),
  })
  .meta({ id: 'TokenResponse' });
export type TokenResponse = z.infer<typeof TokenResponse>;

export const RegisterRequest = z
  .object({
    organizationName: z.string().trim().min(1).max(200),
    name: PersonName,
    email: Email,
    password: Password,
    locale: z.enum(['ru', 'en']).optional().meta({ description: 'The first administrator’s language (default ru)' }),
  })
  .meta({ id: 'RegisterRequest' });

export const LoginRequest = z
  .object({ email: Email, password: z.string().min(1).max(256) })
  .meta({ id: 'LoginRequest' });

export const RefreshTokenRequest = z
  .object({ refreshToken: z.string().min(1).max(512) })
  .meta({ id: 'RefreshTokenRequest' });

export const LogoutRequest = z
  .object({
    refreshToken: z.string().min(1).max(512).optional(),
    refreshTokenHash: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'The SHA-256 of the refresh token, as 64 lowercase hexadecimal digits.')
      .optional()
      .describe(
        'SHA-256 (hex) of the refresh token, instead of the token: a device signed out without the network keeps only this, which can end the session and nothing else.',
      ),
  })
  .refine((body) => (body.refreshToken === undefined) !== (body.refreshTokenHash === undefined), {
    message: 'Give either refreshToken or refreshTokenHash.',
  })
  .meta({ id: 'LogoutRequest' });

export const ForgotPasswordRequest = z.object({ email: Email }).meta({ id: 'ForgotPasswordRequest' });

export const ResetPasswordRequest = z
  .object({ token: z.string().min(1).max(512), password: Password })
  .meta({ id: 'ResetPasswordRequest' });

export const Accepted = z.object({ accepted: z.literal(true), message: z.string() }).meta({ id: 'Accepted' });

/** The organization as its members see it. Flag names are the specification's. */
export const Organization = z
  .object({
    id: z.uuid(),
    name: z.string(),
    activeSkinId: z.uuid().nullable(),
    health_schedule_enabled: z.boolean(),
    billingBlocked: z.boolean(),
  })
  .meta({ id: 'Organization' });
export type Organization = z.infer<typeof Organization>;

export const UpdateOrganizationRequest = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    health_schedule_enabled: z.boolean().optional(),
    activeSkinId: z
      .uuid()
      .nullable()
      .optional()
      .meta({ description: 'The organization’s skin, one of `/api/skins` (null: the default look)' }),
  })
  .meta({ id: 'UpdateOrganizationRequest' });

export const UserStatus = z.enum(['invited', 'active', 'deactivated']);

export const User = z
  .object({
    id: z.uuid(),
    email: z.string(),
    name: z.string(),
    isAdmin: z.boolean(),
    status: UserStatus,
    locale: Locale,
    roleIds: z.array(z.uuid()),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'User' });
export type User = z.infer<typeof User>;

export const RoleSummary = z.object({ id: z.uuid(), name: z.string() }).meta({ id: 'RoleSummary' });

export const ModuleFlags = z.record(GatedModule, z.boolean()).meta({ id: 'ModuleFlags' });

/** `GET /api/auth/me`: the signed-in user, their roles and modules, and the organization. */
export const Me = z
  .object({ user: User, roles: z.array(RoleSummary), modules: ModuleFlags, organization: Organization })
  .meta({ id: 'Me' });
export type Me = z.infer<typeof Me>;

export const InviteUserRequest = z
  .object({
    email: Email,
    name: PersonName,
    isAdmin: z.boolean().default(false),
    locale: Locale.optional(),
    roleIds: z.array(z.uuid()).max(500).default([]),
  })
  .meta({ id: 'InviteUserRequest' });

export const UpdateUserRequest = z
  .object({
    name: PersonName.optional(),
    locale: Locale.optional(),
    isAdmin: z.boolean().optional(),
    status: z.enum(['active', 'deactivated']).optional(),
    roleIds: z.array(z.uuid()).max(500).optional(),
  })
  .meta({ id: 'UpdateUserRequest' });

export const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
});

export const UserList = z.object({ items: z.array(User), nextCursor: z.string().nullable() }).meta({ id: 'UserList' });

export const Role = z
  .object({ id: z.uuid(), name: z.string(), memberIds: z.array(z.uuid()), createdAt: z.iso.datetime() })
  .meta({ id: 'Role' });
export type Role = z.infer<typeof Role>;

export const RoleList = z.object({ items: z.array(Role) }).meta({ id: 'RoleList' });

export const CreateRoleRequest = z
  .object({ name: z.string().trim().min(1).max(200), memberIds: z.array(z.uuid()).max(5000).default([]) })
  .meta({ id: 'CreateRoleRequest' });
export const UpdateRoleRequest = z
  .object({ name: z.string().trim().min(1).max(200) })
  .meta({ id: 'UpdateRoleRequest' });
export const SetRoleMembersRequest = z
  .object({ userIds: z.array(z.uuid()).max(5000) })
  .meta({ id: 'SetRoleMembersRequest' });

/** The GPS / Finance access matrix: grants per user and per role. */
export const ModuleAccessMatrix = z
  .object({
    modules: z.array(GatedModule),
    users: z.array(
      z.object({ userId: z.uuid(), name: z.string(), isAdmin: z.boolean(), modules: z.array(GatedModule) }),
    ),
    roles: z.array(z.object({ roleId: z.uuid(), name: z.string(), modules: z.array(GatedModule) })),
  })
  .meta({ id: 'ModuleAccessMatrix' });

/** Sets the granted modules of the listed users and roles; others keep theirs. */
export const UpdateModuleAccessRequest = z
  .object({
    users: z
      .array(z.object({ userId: z.uuid(), modules: z.array(GatedModule) }))
      .max(5000)
      .default([]),
    roles: z
      .array(z.object({ roleId: z.uuid(), modules: z.array(GatedModule) }))
      .max(5000)
      .default([]),
  })
  .meta({ id: 'UpdateModuleAccessRequest' });

const UserParams = z.object({ userId: z.uuid() });
const RoleParams = z.object({ roleId: z.uuid() });

/** Sign-up, sign-in, sessions and passwords; the organization, its users, roles and module access. */
export const identityApi = {
  register: endpoint({
    method: 'post',
    path: '/api/auth/register',
    operationId: 'register',
    summary: 'Create an organization and its first administrator, signed in',
    tags: ['auth'],
    request: { body: RegisterRequest },
    responses: { 201: { description: 'Signed in as the new administrator', schema: TokenResponse } },
  }),
  login: endpoint({
    method: 'post',
    path: '/api/auth/login',
    operationId: 'login',
    summary: 'Sign in with e-mail and password',
    description: 'Repeated failures lock the account and the address for 15 minutes (429 with Retry-After).',
    tags: ['auth'],
    request: { body: LoginRequest },
    responses: { 200: { description: 'Signed in', schema: TokenResponse } },
  }),
  refreshTokens: endpoint({
    method: 'post',
    path: '/api/auth/refresh',
    operationId: 'refreshTokens',
    summary: 'Exchange a refresh token for new tokens (rotation)',
    description:
      'The presented token is replaced. Presenting an already rotated token revokes all tokens of its session family, ' +
      'except the immediately previous one within REFRESH_GRACE_SECONDS of its rotation. ' +
      'A refresh token of a deactivated account is answered 403 account_deactivated.',
    tags: ['auth'],
    request: { body: RefreshTokenRequest },
    responses: { 200: { description: 'New tokens', schema: TokenResponse } },
  }),
  logout: endpoint({
    method: 'post',
    path: '/api/auth/logout',
    operationId: 'logout',
    summary: 'Sign out: revoke the session family of a refresh token (or of its SHA-256)',
    tags: ['auth'],
    request: { body: LogoutRequest },
    responses: { 204: { description: 'Signed out (also for unknown tokens)' } },
  }),
  forgotPassword: endpoint({
    method: 'post',
    path: '/api/auth/forgot-password',
    operationId: 'forgotPassword',
    summary: 'Send a password-reset link by e-mail',
    description: 'Answers the same whether or not the address has an account.',
    tags: ['auth'],
    request: { body: ForgotPasswordRequest },
    responses: { 202: { description: 'If the account exists, a link is on its way', schema: Accepted } },
  }),
  resetPassword: endpoint({
    method: 'post',
    path: '/api/auth/reset-password',
    operationId: 'resetPassword',
    summary: 'Set a new password with a reset or invitation token',
    description: 'The token works once. Every session of the user ends.',
    tags: ['auth'],
    request: { body: ResetPasswordRequest },
    responses: { 204: { description: 'Password set; sign in with it' } },
  }),
  getCurrentUser: endpoint({
    method: 'get',
    path: '/api/auth/me',
    operationId: 'getCurrentUser',
    summary: 'The signed-in user, their roles and modules, and the organization',
    tags: ['auth'],
    responses: { 200: { description: 'Current user', schema: Me } },
  }),
  getOrganization: endpoint({
    method: 'get',
    path: '/api/organization',
    operationId: 'getOrganization',
    summary: 'The caller’s organization',
    tags: ['organization'],
    responses: { 200: { description: 'Organization', schema: Organization } },
  }),
  updateOrganization: endpoint({
    method: 'patch',
    path: '/api/organization',
    operationId: 'updateOrganization',
    summary: 'Rename the organization, switch the health-schedule module or set its skin',
    tags: ['organization'],
    request: { body: UpdateOrganizationRequest },
    responses: { 200: { description: 'Organization', schema: Organization } },
  }),
  listUsers: endpoint({
    method: 'get',
    path: '/api/users',
    operationId: 'listUsers',
    summary: 'Users of the organization, by name',
    tags: ['users'],
    request: { query: ListQuery },
    responses: { 200: { description: 'A page of users', schema: UserList } },
  }),
  inviteUser: endpoint({
    method: 'post',
    path: '/api/users',
    operationId: 'inviteUser',
    summary: 'Invite a colleague (an e-mail with a set-password link)',
    tags: ['users'],
    request: { body: InviteUserRequest },
    responses: { 201: { description: 'The invited user', schema: User } },
  }),
  getUser: endpoint({
    method: 'get',
    path: '/api/users/:userId',
    operationId: 'getUser',
    summary: 'One user',
    tags: ['users'],
    request: { params: UserParams },
    responses: { 200: { description: 'User', schema: User } },
  }),
  updateUser: endpoint({
    method: 'patch',
    path: '/api/users/:userId',
    operationId: 'updateUser',
    summary: 'Edit a user (own name and language; administrators: anything, incl. deactivation)',
    tags: ['users'],
    request: { params: UserParams, body: UpdateUserRequest },
    responses: { 200: { description: 'User', schema: User } },
  }),
  resendInvitation: endpoint({
    method: 'post',
    path: '/api/users/:userId/invitation',
    operationId: 'resendInvitation',
    summary: 'Send a new invitation link to a user who has not joined',
    tags: ['users'],
    request: { params: UserParams },
    responses: { 202: { description: 'Sent', schema: Accepted } },
  }),
  listRoles: endpoint({
    method: 'get',
    path: '/api/roles',
    operationId: 'listRoles',
    summary: 'Roles of the organization (every member may read them)',
    tags: ['roles'],
    responses: { 200: { description: 'Roles', schema: RoleList } },
  }),
  createRole: endpoint({
    method: 'post',
    path: '/api/roles',
    operationId: 'createRole',
    summary: 'Create a role',
    tags: ['roles'],
    request: { body: CreateRoleRequest },
    responses: { 201: { description: 'Role', schema: Role } },
  }),
  getRole: endpoint({
    method: 'get',
    path: '/api/roles/:roleId',
    operationId: 'getRole',
    summary: 'One role with its members',
    tags: ['roles'],
    request: { params: RoleParams },
    responses: { 200: { description: 'Role', schema: Role } },
  }),
  renameRole: endpoint({
    method: 'patch',
    path: '/api/roles/:roleId',
    operationId: 'renameRole',
    summary: 'Rename a role',
    tags: ['roles'],
    request: { params: RoleParams, body: UpdateRoleRequest },
    responses: { 200: { description: 'Role', schema: Role } },
  }),
  deleteRole: endpoint({
    method: 'delete',
    path: '/api/roles/:roleId',
    operationId: 'deleteRole',
    summary: 'Delete a role (its members keep their accounts)',
    tags: ['roles'],
    request: { params: RoleParams },
    responses: { 204: { description: 'Deleted' } },
  }),
  setRoleMembers: endpoint({
    method: 'put',
    path: '/api/roles/:roleId/members',
    operationId: 'setRoleMembers',
    summary: 'Set the members of a role',
    tags: ['roles'],
    request: { params: RoleParams, body: SetRoleMembersRequest },
    responses: { 200: { description: 'Role', schema: Role } },
  }),
  getModuleAccess: endpoint({
    method: 'get',
    path: '/api/module-access',
    operationId: 'getModuleAccess',
    summary: 'The GPS / Finance access matrix of users and roles',
    tags: ['users'],
    responses: { 200: { description: 'Matrix', schema: ModuleAccessMatrix } },
  }),
  updateModuleAccess: endpoint({
    method: 'put',
    path: '/api/module-access',
    operationId: 'updateModuleAccess',
    summary: 'Set the modules granted to the listed users and roles',
    tags: ['users'],
    request: { body: UpdateModuleAccessRequest },
    responses: { 200: { description: 'Matrix', schema: ModuleAccessMatrix } },
  }),
};
