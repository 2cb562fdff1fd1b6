variable "db_password" {
  description = "The database password"
  type        = string
  default     = "RqTfCArzP5nD!"
}

provider "cloudflare" {
  api_token = "rqtf5WoCgIasjnR4fPiIfBnORfkllNqdv4"
}
