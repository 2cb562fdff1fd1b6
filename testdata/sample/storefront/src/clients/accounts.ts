/** Client for the accounts service (Python, platform/services/accounts). */

const ACCOUNTS_URL = process.env.ACCOUNTS_URL ?? "http://accounts:5000";

export interface UserProfile {
  user_id: string;
  display_name: string;
  email: string;
  shipping_address: string | null;
}

export class ProfileNotFoundError extends Error {
  constructor(readonly userId: string) {
    super(`no profile for user ${userId}`);
  }
}

/**
 * Loads the profile shown on the account page: GET /users/{user_id}/profile
 * on the accounts service. Throws ProfileNotFoundError for unknown users.
 */
export async function getUserProfile(userId: string): Promise<UserProfile> {
  const res = await fetch(`${ACCOUNTS_URL}/users/${encodeURIComponent(userId)}/profile`, {
    headers: { accept: "application/json" },
    signal: AbortSignal.timeout(2000),
  });
  if (res.status === 404) {
    throw new ProfileNotFoundError(userId);
  }
  if (!res.ok) {
    throw new Error(`accounts service answered ${res.status}`);
  }
  return (await res.json()) as UserProfile;
}
