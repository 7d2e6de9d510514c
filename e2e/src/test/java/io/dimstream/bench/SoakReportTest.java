package io.dimstream.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The soak's verdict: which series it judges, and by what. */
class SoakReportTest {

    /** 60 rows a minute apart, every series flat, then {@code column} rising by {@code rise} per row. */
    private static List<double[]> rows(int column, double rise) {
        List<double[]> rows = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            double[] r = {60.0 * i, 600, 80, 36, 255, 11, 2, 1000, 800, 2500, 30000, 210, 40};
            r[column] += rise * i;
            rows.add(r);
        }
        return rows;
    }

    @Test
    void aFlatRunIsFlat() {
        assertThat(SoakReport.verdict(rows(1, 0), 2000)).isTrue();
    }

    @Test
    void theHeapIsJudgedByItsLiveSetNotByTheWindowMinimumOfTheHeapInUse() {
        // the window minimum rising 0.5 MiB a minute (+14.5 MiB over the second half, 14% of its mean): not judged
        assertThat(SoakReport.verdict(rows(2, 0.5), 2000)).isTrue();
        // the live set rising as much: +14.5 MiB, 23% of its mean
        assertThat(SoakReport.verdict(rows(12, 0.5), 2000)).isFalse();
        // rising 0.1 MiB a minute: +2.9 MiB, 6.5%, under the 10% bar
        assertThat(SoakReport.verdict(rows(12, 0.1), 2000)).isTrue();
    }

    @Test
    void theLiveSetIsTheTotalOfTheClassHistogram() {
        List<String> histogram = List.of("12345:", " num     #instances         #bytes  class name (module)",
                "-------------------------------------------------------",
                "   1:         93034       15728032  [B (java.base@17.0.13)",
                "   2:         90318        2167632  java.lang.String (java.base@17.0.13)",
                "Total        412006       29360128");
        assertThat(SoakSampler.histogramTotalBytes(histogram)).isEqualTo(29360128.0);
        assertThat(SoakSampler.histogramTotalBytes(List.of("12345:", "com.sun.tools.attach.AttachNotSupportedException"))).isEqualTo(-1.0);
    }

    @Test
    void rowsWithoutALiveSetSampleAreLeftOut() {
        List<double[]> rows = rows(1, 0);
        // sampled every 5 minutes, rows every 30 s: -1 on the rows between samples
        for (int i = 30; i < 60; i++) {
            if (i % 10 != 0) {
                rows.get(i)[12] = -1;
            }
        }
        assertThat(SoakReport.verdict(rows, 2000)).isTrue();
        assertThat(SoakReport.fit(rows.subList(30, 60), 12)[1]).isEqualTo(40.0);
    }
}
