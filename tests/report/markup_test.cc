// Escaping, decipixel printing, integer scaling and percentages (src/report/markup.h).
#include "report/markup.h"

#include <catch2/catch.hpp>

#include "hyperplan/units.h"

using namespace hyperplan::report;

TEST_CASE("markup escapes the five special characters") {
  CHECK(EscapeMarkup("a<b>&\"'") == "a&lt;b&gt;&amp;&quot;&#39;");
  CHECK(EscapeMarkup("plain text") == "plain text");
}

TEST_CASE("markup drops control characters XML cannot carry, keeps tab and newline") {
  CHECK(EscapeMarkup(std::string("a\x01") + "b\tc\nd\x7f" + "e") == "ab\tc\nde");
  CHECK(EscapeMarkup(std::string("x\0y", 3)) == "xy");
}

TEST_CASE("markup replaces invalid UTF-8 and keeps valid sequences") {
  const std::string replacement = "\xEF\xBF\xBD";
  CHECK(EscapeMarkup("\xC2\xB5s") == "\xC2\xB5s");                // µs, 2 bytes
  CHECK(EscapeMarkup("\xE2\x86\x92") == "\xE2\x86\x92");          // →, 3 bytes
  CHECK(EscapeMarkup("\xF0\x9F\x98\x80") == "\xF0\x9F\x98\x80");  // emoji, 4 bytes
  CHECK(EscapeMarkup("\xFF") == replacement);                     // never a UTF-8 byte
  CHECK(EscapeMarkup("\xC0\xAF") == replacement + replacement);   // overlong '/'
  CHECK(EscapeMarkup("\xED\xA0\x80") == replacement + replacement + replacement);  // surrogate
  CHECK(EscapeMarkup("a\xE2\x86") == "a" + replacement + replacement);             // cut short
}

TEST_CASE("abbreviate counts code points and never splits one") {
  CHECK(Abbreviate("abcdefgh", 5) == "ab...");
  CHECK(Abbreviate("abcde", 5) == "abcde");
  CHECK(Abbreviate("abc", 5) == "abc");
  // "é" is two bytes: five of them are five code points and fit in five.
  const std::string e_acute = "\xC3\xA9";
  const std::string five = e_acute + e_acute + e_acute + e_acute + e_acute;
  CHECK(Abbreviate(five, 5) == five);
  CHECK(Abbreviate(five, 4) == e_acute + "...");
}

TEST_CASE("decipixels print as pixels with at most one decimal") {
  CHECK(Px(1234) == "123.4");
  CHECK(Px(1230) == "123");
  CHECK(Px(0) == "0");
  CHECK(Px(-5) == "-0.5");
  CHECK(Px(-20) == "-2");
}

TEST_CASE("linear scale maps integers exactly, rounding half away from zero") {
  const LinearScale x(0, 100, 0, 1000);
  CHECK(x(0) == 0);
  CHECK(x(50) == 500);
  CHECK(x(100) == 1000);
  const LinearScale thirds(0, 3, 0, 10);
  CHECK(thirds(1) == 3);  // 3.33
  CHECK(thirds(2) == 7);  // 6.67
  const LinearScale halves(0, 4, 0, 10);
  CHECK(halves(1) == 3);  // 2.5 rounds up
  const LinearScale down(0, 4, 0, -10);
  CHECK(down(1) == -3);                  // -2.5 rounds away from zero
  const LinearScale y(0, 100, 1000, 0);  // y grows upwards
  CHECK(y(25) == 750);
  const LinearScale empty(5, 5, 42, 99);
  CHECK(empty(5) == 42);
  // Large domains (ns of a long run, bytes of a big model) do not overflow.
  const LinearScale wide(0, int64_t{1} << 60, 0, 10'000);
  CHECK(wide(int64_t{1} << 59) == 5'000);
}

TEST_CASE("percentages have one decimal and the change's own sign") {
  CHECK(PercentChange(-1, 3) == "-33.3%");
  CHECK(PercentChange(1, 8) == "+12.5%");
  CHECK(PercentChange(-1, 8) == "-12.5%");
  CHECK(PercentChange(1, 2000) == "+0.1%");    // 0.05% rounds half up to 0.1
  CHECK(PercentChange(-1, 20000) == "-0.0%");  // a tiny cut still reads as a cut
  CHECK(PercentChange(0, 7) == "+0.0%");
  CHECK(PercentChange(5, 0) == "n/a");
  CHECK(PercentOf(1, 3) == "33.3%");
  CHECK(PercentOf(2, 3) == "66.7%");
  CHECK(PercentOf(3, 3) == "100.0%");
  CHECK(PercentOf(1, 0) == "n/a");
}

TEST_CASE("prose quantities become durations and sizes; other numbers stay") {
  // Both go through hyperplan/units.h, so the expected text is computed the same way here and
  // the test pins only which numbers change.
  CHECK(HumanizeQuantities("predicted stall 4096 ns") ==
        "predicted stall " + hyperplan::FormatDuration(4096));
  CHECK(HumanizeQuantities("no room for 2048 bytes at steps 3..7") ==
        "no room for " + hyperplan::FormatBytes(2048) + " at steps 3..7");
  // 1'500'000 ns is 1.5 ms: the raw number is gone.
  const std::string stall = HumanizeQuantities("stall 1500000 ns exceeds the 20 ns left");
  CHECK(stall.find("1500000") == std::string::npos);
  CHECK_THAT(stall, Catch::Contains("ms exceeds the"));
  // Numbers without the unit word, inside names or followed by a longer word stay as they are.
  CHECK(HumanizeQuantities("frees steps 3..7") == "frees steps 3..7");
  CHECK(HumanizeQuantities("layers.12 ns") == "layers.12 ns");
  CHECK(HumanizeQuantities("x12 ns") == "x12 ns");
  CHECK(HumanizeQuantities("12 nsec") == "12 nsec");
  CHECK(HumanizeQuantities("12 ns.") == hyperplan::FormatDuration(12) + ".");
  CHECK(HumanizeQuantities("") == "");
}
