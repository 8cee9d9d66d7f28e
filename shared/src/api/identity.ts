import { z } from 'zod';
import { GatedModule } from './access';

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
  .object({ name: z.string().trim().min(1).max(200).optional(), health_schedule_enabled: z.boolean().optional() })
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
