package io.dimstream.config.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MaskedMapTest {

    @Test
    void aSettingMapPrintsItsSecretsMasked() {
        Map<String, String> raw = new LinkedHashMap<>();
        raw.put("schema.registry.url", "http://u:p@r:8081");
        raw.put("basic.auth.user.info", "bob:hunter2");
        raw.put("specific.avro.reader", "false");
        Map<String, String> m = MaskedMap.of(raw);
        assertThat(m.toString()).isEqualTo("{schema.registry.url=http://u:****@r:8081, basic.auth.user.info=****, specific.avro.reader=false}");
        assertThat(m).isEqualTo(raw).containsEntry("basic.auth.user.info", "bob:hunter2");
        assertThat(m.hashCode()).isEqualTo(raw.hashCode());
    }
}
