"""The accounts service: sign-up, sign-in and user profiles.

Profiles are read by the storefront (the account page), by checkout (the
shipping address) and by notifications (the e-mail address).
"""

import secrets

from argon2 import PasswordHasher
from flask import Flask, abort, jsonify, request

from .models import Session, User

app = Flask(__name__)
hasher = PasswordHasher()


@app.route("/users/<user_id>/profile", methods=["GET"])
def user_profile(user_id: str):
    """Return the profile of one user."""
    with Session() as session:
        user = session.get(User, user_id)
        if user is None:
            abort(404, description=f"user {user_id} not found")
        return jsonify(user.profile())


@app.route("/users", methods=["POST"])
def create_user():
    body = request.get_json(force=True)
    with Session() as session:
        user = User(
            id=secrets.token_hex(8),
            email=body["email"],
            display_name=body.get("display_name", body["email"]),
            password_hash=hasher.hash(body["password"]),
        )
        session.add(user)
        session.commit()
        return jsonify(user.profile()), 201


@app.route("/sessions", methods=["POST"])
def sign_in():
    body = request.get_json(force=True)
    with Session() as session:
        user = session.query(User).filter_by(email=body["email"]).one_or_none()
        if user is None:
            abort(401)
        try:
            hasher.verify(user.password_hash, body["password"])
        except Exception:
            abort(401)
        return jsonify({"user_id": user.id, "token": secrets.token_urlsafe(32)})


@app.get("/healthz")
def healthz():
    return {"status": "ok"}
