/** Client for the accounts service (Python, services/accounts). */

const ACCOUNTS_URL = process.env.ACCOUNTS_URL ?? "http://accounts:5000";

export interface Profile {
  user_id: string;
  display_name: string;
  email: string;
}

/** GET /users/{user_id}/profile on the accounts service. */
export async function fetchProfile(userId: string): Promise<Profile> {
  const res = await fetch(`${ACCOUNTS_URL}/users/${encodeURIComponent(userId)}/profile`, {
    headers: { accept: "application/json" },
    signal: AbortSignal.timeout(2000),
  });
  if (!res.ok) {
    throw new Error(`accounts answered ${res.status} for user ${userId}`);
  }
  return (await res.json()) as Profile;
}
