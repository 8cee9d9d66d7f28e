/**
 * Whether a form is open to someone: its tasks are theirs to see and they may create tasks of it.
 * Open to administrators, to everyone when it names no roles, else to members of one of its roles.
 * The server decides by it; replicas use it to offer only the forms the server takes tasks of.
 */
export function formOpenTo(
  visibleRoleIds: readonly string[],
  viewer: { isAdmin: boolean; roleIds: readonly string[] },
): boolean {
  return viewer.isAdmin || visibleRoleIds.length === 0 || visibleRoleIds.some((id) => viewer.roleIds.includes(id));
}
