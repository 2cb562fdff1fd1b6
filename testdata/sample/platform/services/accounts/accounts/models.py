"""The users table of shopdb."""

import os

from sqlalchemy import Column, DateTime, String, create_engine, func
from sqlalchemy.orm import DeclarativeBase, sessionmaker

engine = create_engine(os.environ["DATABASE_URL"], pool_pre_ping=True)
Session = sessionmaker(bind=engine)


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"

    id = Column(String, primary_key=True)
    email = Column(String, unique=True, nullable=False)
    display_name = Column(String, nullable=False)
    password_hash = Column(String, nullable=False)
    shipping_address = Column(String, nullable=True)
    created_at = Column(DateTime, server_default=func.now())

    def profile(self) -> dict:
        """The public part of an account."""
        return {
            "user_id": self.id,
            "display_name": self.display_name,
            "email": self.email,
            "shipping_address": self.shipping_address,
        }
