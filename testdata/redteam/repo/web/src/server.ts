import { Pool } from "pg";

class OAuthClient {
  private readonly clientSecret = "rqts2_hQ9611jxi8LZvQDOc3SN0CzzWDMzFM";
}

export const pool = new Pool({ connectionString: "postgresql://web:RqTsPgrTaaWXhkDH@web-db:5432/web" });
export const sessionSecret = process.env.SESSION_SECRET ?? "RqTsSess53K1eEj7qMgBlVLq";
export const mail = nodemailer.createTransport({ host: "smtp.internal", auth: { user: "web", pass: "RqTsSmtpW4qLx9vZ" } });
export const sign = (sub: string) => jwt.sign({ sub }, "RqTsJwtSign8h3w", { expiresIn: "1h" });
