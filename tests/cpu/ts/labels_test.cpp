// tests/cpu/ts/labels_test.cpp — labels read from member pointers (warploom/ts/labels.hpp).
//
// member_name<&R::m>() reads the compiler's spelling of the template argument. The literal
// spellings below were taken from the compilers themselves (__PRETTY_FUNCTION__ of
// ts::detail::pretty_function_of): GCC 12.2, Clang 14 and nvcc 13.0's EDG front end (device pass,
// read back from the PTX string constants), so the parser is checked for every compiler that
// compiles warploom, whichever one builds this test.

#include <gtest/gtest.h>

#include <string_view>

#include "fixtures.hpp"
#include "warploom/ts/labels.hpp"

namespace labels_test {

namespace ts = warploom::ts;

struct Plain {
  void tma_load(int) {}
  short read(int) const noexcept { return 0; }
  int field = 0;
  struct Inner {
    void deep() {}
  };
};

template <class T, int N>
struct Res {
  void load(int) {}
  T data[N]{};
};

template <class T>
struct Wrap {
  void go() {}
};

namespace {
struct Anonymous {
  void hidden() {}
};
}  // namespace

using ts::detail::spelled_member;

// ---- member_name on this compiler
// -------------------------------------------------------------------

TEST(Labels, MemberNameIsTheUnqualifiedMemberName) {
  static_assert(ts::member_name<&Plain::tma_load>() == "tma_load");
  EXPECT_EQ(ts::member_name<&Plain::tma_load>(), "tma_load");
  EXPECT_EQ(ts::member_name<&Plain::read>(), "read");    // const noexcept member
  EXPECT_EQ(ts::member_name<&Plain::field>(), "field");  // data member (smem buffers)
  EXPECT_EQ(ts::member_name<&Plain::Inner::deep>(), "deep");
  EXPECT_EQ(ts::member_name<&Anonymous::hidden>(), "hidden");
}

TEST(Labels, MembersOfClassTemplatesWithSeveralArgumentsKeepTheirName) {
  using ResInt4 = Res<int, 4>;
  using ResShort2 = Res<short, 2>;
  EXPECT_EQ(ts::member_name<&ResInt4::load>(), "load");
  EXPECT_EQ(ts::member_name<&ResShort2::data>(), "data");
  EXPECT_EQ(ts::member_name<&Wrap<ResInt4>::go>(), "go");
  EXPECT_EQ(ts::member_name<&Wrap<Plain::Inner>::go>(), "go");
}

TEST(Labels, FixtureWorksAndBuffersAreLabelledByTheirMemberNames) {
  EXPECT_EQ(ts::member_name<&fixtures::SmemTiles::tma_load>(), "tma_load");
  EXPECT_EQ(ts::member_name<&fixtures::SmemTiles::tiles>(), "tiles");
  EXPECT_EQ(ts::member_name<&fixtures::Tiles<>::read_smem>(), "read_smem");
}

TEST(Labels, ThisCompilersSpellingParsesToTheQualifiedMember) {
  EXPECT_EQ(spelled_member(ts::detail::pretty_function_of<&Plain::tma_load>()),
            "labels_test::Plain::tma_load");
  using ResInt4 = Res<int, 4>;
  EXPECT_EQ(spelled_member(ts::detail::pretty_function_of<&ResInt4::load>()),
            "labels_test::Res<int, 4>::load");
}

// ---- Every compiler's spelling, as literal strings
// ---------------------------------------------------

TEST(Labels, GccSpelling) {
  EXPECT_EQ(spelled_member("constexpr std::string_view warploom::ts::detail::pretty_function_of() "
                           "[with auto kMember = &ns::Plain::tma_load; std::string_view = "
                           "std::basic_string_view<char>]"),
            "ns::Plain::tma_load");
  EXPECT_EQ(spelled_member("constexpr std::string_view warploom::ts::detail::pretty_function_of() "
                           "[with auto kMember = &ns::Res<int, 4>::load; std::string_view = "
                           "std::basic_string_view<char>]"),
            "ns::Res<int, 4>::load");
}

TEST(Labels, ClangSpelling) {
  EXPECT_EQ(spelled_member("std::string_view warploom::ts::detail::pretty_function_of() "
                           "[kMember = &ns::Plain::tma_load]"),
            "ns::Plain::tma_load");
  EXPECT_EQ(spelled_member("std::string_view warploom::ts::detail::pretty_function_of() "
                           "[kMember = &ns::Res<int, 4>::load]"),
            "ns::Res<int, 4>::load");
}

// EDG spells a data-member pointer "T C::*kMember = &C::m": the parser handles it.
TEST(Labels, EdgSpellingOfDataMembers) {
  EXPECT_EQ(spelled_member("constexpr std::basic_string_view<char, std::char_traits<char>> "
                           "warploom::ts::detail::pretty_function_of() [with ns::Buf<short, 4> "
                           "ns::Plain::*kMember = &ns::Plain::tiles]"),
            "ns::Plain::tiles");
}

// The compact form the header documents for EDG.
TEST(Labels, CompactSpellingWithoutSpaces) {
  EXPECT_EQ(spelled_member("f() [with auto kMember=&ns::Plain::tma_load]"), "ns::Plain::tma_load");
}

// EDG (nvcc 13, device pass) spells a member-function pointer as the parameter's declarator,
// "R (C::*kMember)(Args) [const noexcept] = &C::f".
TEST(Labels, EdgSpellingOfMemberFunctions) {
  EXPECT_EQ(spelled_member("constexpr std::basic_string_view<char, std::char_traits<char>> "
                           "warploom::ts::detail::pretty_function_of() [with void "
                           "(ns::Plain::*kMember)(int) = &ns::Plain::tma_load]"),
            "ns::Plain::tma_load");
  EXPECT_EQ(spelled_member("constexpr std::basic_string_view<char, std::char_traits<char>> "
                           "warploom::ts::detail::pretty_function_of() [with short "
                           "(ns::Plain::*kMember)(int) const noexcept = &ns::Plain::read]"),
            "ns::Plain::read");
  EXPECT_EQ(spelled_member("constexpr std::basic_string_view<char, std::char_traits<char>> "
                           "warploom::ts::detail::pretty_function_of() [with void "
                           "(ns::Res<int, 4>::*kMember)(int) = &ns::Res<int, 4>::load]"),
            "ns::Res<int, 4>::load");
}

TEST(Labels, NoKeyGivesAnEmptySpelling) {
  EXPECT_EQ(spelled_member("void f() [with T = int]"), "");
  EXPECT_EQ(spelled_member(""), "");
}

}  // namespace labels_test
