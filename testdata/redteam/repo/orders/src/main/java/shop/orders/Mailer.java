package shop.orders;

import org.springframework.beans.factory.annotation.Value;

public class Mailer {
    private String pwd = "RqJavaR5rtbFMA1P";

    @Value("${mail.password:RqJavaDefKmMpFLvs}")
    private String mailPassword;
}
