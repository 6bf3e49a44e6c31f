// Test support: a strict reader for the report's polyglot HTML (HTML that is also well-formed
// XML), independent of the writer.
//
// It rejects what either an HTML or an XML parser would read differently or refuse: a missing
// "<!DOCTYPE html>", unquoted or duplicate attributes, a raw '<' or a bare '&' in text or
// attributes, an unknown entity, end tags that do not match, a self-closed HTML element that
// HTML does not treat as void (a browser would leave "<div/>" open), a void HTML element not
// self-closed (XML would leave it open), '<' or '&' inside <style>, any <script>, and any
// reference to another file (src=, href= other than "#...", url(, @import). On success it
// indexes elements by id (their text content and attributes) and counts elements by name.
#pragma once

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace hyperplan::testing {

struct HtmlElementInfo {
  std::string name;
  std::map<std::string, std::string> attributes;  // entity-decoded
  std::string text;                               // all descendant text, entity-decoded
};

struct HtmlDocument {
  std::map<std::string, HtmlElementInfo> by_id;
  std::map<std::string, int> element_counts;
  int element_total = 0;
  std::string text;  // all text content of <body>, entity-decoded
};

class HtmlChecker {
 public:
  explicit HtmlChecker(const std::string& html) : html_(html) {}

  // Throws std::runtime_error naming the byte offset and the rule broken.
  HtmlDocument Check() {
    Expect("<!DOCTYPE html>");
    struct Open {
      std::string name;
      std::string id;
      size_t text_start;  // index into collected text
    };
    std::vector<Open> stack;
    std::string all_text;
    bool seen_root = false;
    bool in_body = false;
    while (pos_ < html_.size()) {
      if (html_.compare(pos_, 4, "<!--") == 0) {
        const size_t end = html_.find("-->", pos_ + 4);
        if (end == std::string::npos) Fail("unterminated comment");
        pos_ = end + 3;
      } else if (html_.compare(pos_, 2, "</") == 0) {
        pos_ += 2;
        const std::string name = Name();
        SkipSpace();
        Expect(">");
        if (stack.empty() || stack.back().name != name) {
          Fail("end tag </" + name + "> does not match <" +
               (stack.empty() ? std::string("nothing") : stack.back().name) + ">");
        }
        if (!stack.back().id.empty()) {
          doc_.by_id[stack.back().id].text = all_text.substr(stack.back().text_start);
        }
        if (name == "body") in_body = false;
        stack.pop_back();
      } else if (html_[pos_] == '<') {
        ++pos_;
        const std::string name = Name();
        if (name == "script") Fail("a <script> element");
        if (stack.empty()) {
          if (seen_root) Fail("a second root element");
          if (name != "html") Fail("the root element is not <html>");
          seen_root = true;
        }
        HtmlElementInfo info;
        info.name = name;
        bool self_closed = false;
        while (true) {
          SkipSpace();
          if (html_.compare(pos_, 2, "/>") == 0) {
            pos_ += 2;
            self_closed = true;
            break;
          }
          if (pos_ < html_.size() && html_[pos_] == '>') {
            ++pos_;
            break;
          }
          const std::string attribute = Name();
          Expect("=\"");
          const size_t end = html_.find('"', pos_);
          if (end == std::string::npos) Fail("unterminated attribute value");
          const std::string raw = html_.substr(pos_, end - pos_);
          if (raw.find('<') != std::string::npos) Fail("'<' in an attribute value");
          const std::string value = Decode(raw, pos_);
          pos_ = end + 1;
          if (!info.attributes.emplace(attribute, value).second) {
            Fail("duplicate attribute " + attribute);
          }
          if (attribute == "src") Fail("a src= attribute");
          if (attribute == "href" && (value.empty() || value[0] != '#')) Fail("an external href");
        }
        const bool in_svg =
            name == "svg" ||
            std::any_of(stack.begin(), stack.end(), [](const Open& o) { return o.name == "svg"; });
        const bool is_void = kVoid.count(name) > 0;
        if (!in_svg && is_void && !self_closed) Fail("void <" + name + "> not self-closed");
        if (!in_svg && !is_void && self_closed) Fail("non-void <" + name + "/> self-closed");
        ++doc_.element_counts[name];
        ++doc_.element_total;
        const auto id = info.attributes.find("id");
        std::string id_text = id == info.attributes.end() ? "" : id->second;
        if (!id_text.empty() && !doc_.by_id.emplace(id_text, info).second) {
          Fail("duplicate id " + id_text);
        }
        if (name == "style") {
          const size_t end = html_.find("</style>", pos_);
          if (end == std::string::npos) Fail("unterminated <style>");
          const std::string css = html_.substr(pos_, end - pos_);
          if (css.find_first_of("<&") != std::string::npos) Fail("'<' or '&' in <style>");
          if (css.find("url(") != std::string::npos || css.find("@import") != std::string::npos) {
            Fail("an external reference in <style>");
          }
          pos_ = end + 8;
          continue;
        }
        if (name == "body") in_body = true;
        if (!self_closed) stack.push_back({name, id_text, all_text.size()});
      } else {
        const size_t end = html_.find('<', pos_);
        const size_t stop = end == std::string::npos ? html_.size() : end;
        const std::string raw = html_.substr(pos_, stop - pos_);
        const std::string text = Decode(raw, pos_);
        if (stack.empty() && text.find_first_not_of(" \n\t\r") != std::string::npos) {
          Fail("text outside the root element");
        }
        if (in_body) all_text += text;
        pos_ = stop;
      }
    }
    if (!stack.empty()) Fail("<" + stack.back().name + "> never closed");
    if (!seen_root) Fail("no root element");
    doc_.text = all_text;
    return doc_;
  }

 private:
  // HTML elements that take no end tag; everything else must close.
  inline static const std::set<std::string> kVoid = {"area",   "base",  "br",    "col",  "embed",
                                                     "hr",     "img",   "input", "link", "meta",
                                                     "source", "track", "wbr"};

  [[noreturn]] void Fail(const std::string& rule) const {
    throw std::runtime_error("html at byte " + std::to_string(pos_) + ": " + rule + " near '" +
                             html_.substr(pos_ > 40 ? pos_ - 40 : 0, 80) + "'");
  }

  void Expect(const std::string& literal) {
    if (html_.compare(pos_, literal.size(), literal) != 0) Fail("expected '" + literal + "'");
    pos_ += literal.size();
  }

  void SkipSpace() {
    while (pos_ < html_.size() && (html_[pos_] == ' ' || html_[pos_] == '\n')) ++pos_;
  }

  std::string Name() {
    const size_t start = pos_;
    while (pos_ < html_.size() && (std::isalnum(static_cast<unsigned char>(html_[pos_])) ||
                                   html_[pos_] == '-' || html_[pos_] == ':')) {
      ++pos_;
    }
    if (pos_ == start) Fail("expected a name");
    return html_.substr(start, pos_ - start);
  }

  // Entities: the five XML ones and numeric references; anything else is an error.
  std::string Decode(const std::string& raw, size_t offset) {
    std::string out;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '&') {
        out += raw[i];
        continue;
      }
      const size_t semicolon = raw.find(';', i);
      if (semicolon == std::string::npos) {
        pos_ = offset + i;
        Fail("bare '&'");
      }
      const std::string entity = raw.substr(i + 1, semicolon - i - 1);
      static const std::map<std::string, std::string> kNamed = {
          {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}};
      if (const auto named = kNamed.find(entity); named != kNamed.end()) {
        out += named->second;
      } else if (entity.size() > 1 && entity[0] == '#') {
        const bool hex = entity[1] == 'x';
        const std::string digits = entity.substr(hex ? 2 : 1);
        if (digits.empty() || digits.find_first_not_of(hex ? "0123456789abcdefABCDEF"
                                                           : "0123456789") != std::string::npos) {
          pos_ = offset + i;
          Fail("malformed character reference &" + entity + ";");
        }
        AppendUtf8(out, std::stoul(digits, nullptr, hex ? 16 : 10));
      } else {
        pos_ = offset + i;
        Fail("unknown entity &" + entity + ";");
      }
      i = semicolon;
    }
    return out;
  }

  static void AppendUtf8(std::string& out, unsigned long code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  const std::string& html_;
  size_t pos_ = 0;
  HtmlDocument doc_;
};

inline HtmlDocument CheckHtml(const std::string& html) { return HtmlChecker(html).Check(); }

}  // namespace hyperplan::testing
