package io.dimstream.db.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SecretsTest {

    @Test
    void everySecretParameterOfAJdbcUrlIsMaskedAndTheRestKept() {
        assertThat(Secrets.mask("jdbc:postgresql://db:5432/dim?user=u&password=s3cret&sslpassword=k3y&sslkey=/k/client.pk8"
                + "&ssl=true;sslmode=verify-full"))
                .isEqualTo("jdbc:postgresql://db:5432/dim?user=u&password=****&sslpassword=****&sslkey=****"
                        + "&ssl=true;sslmode=verify-full");
        assertThat(Secrets.mask("jdbc:postgresql://db/dim?PASSWORD=x")).isEqualTo("jdbc:postgresql://db/dim?PASSWORD=****");
    }

    @Test
    void aUrlsUserInfoLosesItsPasswordButKeepsTheUser() {
        assertThat(Secrets.mask("schema.registry.url=http://reg:p%40ss@registry:8081/ and postgres://u:pw@h/db"))
                .isEqualTo("schema.registry.url=http://reg:****@registry:8081/ and postgres://u:****@h/db");
        assertThat(Secrets.mask("http://registry:8081/subjects")).isEqualTo("http://registry:8081/subjects");
    }

    @Test
    void propertiesAndJaasOptionsInAMessageAreMasked() {
        // an unquoted value runs to the next whitespace, & or ;: a comma may be part of a password
        assertThat(Secrets.mask("configure {basic.auth.user.info=bob:hun,ter2, schema.registry.url=http://r:8081} failed"))
                .isEqualTo("configure {basic.auth.user.info=**** schema.registry.url=http://r:8081} failed");
        assertThat(Secrets.mask("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"ds\" password=\"k4 fka\";"))
                .isEqualTo("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"ds\" password=****;");
        assertThat(Secrets.mask("bearer.auth.token = abc123 client.secret='x y'"))
                .isEqualTo("bearer.auth.token = **** client.secret=****");
    }

    @Test
    void textWithoutSecretsIsUnchangedAndMaskingTwiceChangesNothing() {
        String plain = "admin.users[0].password: a plain password must come from the environment (write ${VAR}); key=C1";
        assertThat(Secrets.mask(plain)).isEqualTo(plain);
        String once = Secrets.mask("?password=a&sslpassword=b");
        assertThat(Secrets.mask(once)).isEqualTo(once).isEqualTo("?password=****&sslpassword=****");
        assertThat(Secrets.mask(null)).isNull();
    }
}
