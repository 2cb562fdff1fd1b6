import type { Request } from "express";

/** The signed-in user's id, from the session cookie set by the login page. */
export function currentUserId(req: Request): string | undefined {
  const session = req.cookies?.acme_session as string | undefined;
  if (!session) {
    return undefined;
  }
  const [userId] = session.split(".");
  return userId || undefined;
}
