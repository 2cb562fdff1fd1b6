import React, { useEffect, useState } from "react";
import { getUserProfile, UserProfile } from "../clients/accounts";

type Props = { userId: string };

export function ProfileCard({ userId }: Props) {
  const [profile, setProfile] = useState<UserProfile | null>(null);
  useEffect(() => {
    getUserProfile(userId).then(setProfile);
  }, [userId]);
  if (!profile) {
    return <p className="loading">Loading…</p>;
  }
  return (
    <section className="profile">
      <h2>{profile.display_name}</h2>
      <p>{profile.email}</p>
    </section>
  );
}

export const Empty = () => <div />;
