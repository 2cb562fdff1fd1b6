import { Router } from "express";
import { getUserProfile, ProfileNotFoundError } from "../clients/accounts";
import { currentUserId } from "../session";

export const accountRouter = Router();

/** The signed-in user's profile for the account page. */
accountRouter.get("/me", async (req, res, next) => {
  const userId = currentUserId(req);
  if (!userId) {
    res.status(401).json({ error: "sign in first" });
    return;
  }
  try {
    res.json(await getUserProfile(userId));
  } catch (err) {
    if (err instanceof ProfileNotFoundError) {
      res.status(404).json({ error: err.message });
      return;
    }
    next(err);
  }
});
