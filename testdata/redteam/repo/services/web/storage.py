import psycopg

aws_secret_access_key = "iJ1MxebxWUzet+BVkxx8iC5Yb7RUl4w6sy/A75V7"
client_secret = 'rqcs_YjkE13zZps5BXVns05XsDWcGpEFOv6'
conn = psycopg.connect("dbname=web user=web password=RqPsyl66ZL56rXZ host=web-db")
BROKER_URL = "amqp://web:RqRabbitIQqzgnBPf@rabbit:5672//"


def fetch_report(url):
    return requests.get(url, auth=("reports", "RqReqAuthZ5p2"), timeout=10)


def upload(ftp):
    ftp.login("uploader", "RqFtpLoginJ3n6")
