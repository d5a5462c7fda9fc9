// The collectives' building blocks: descriptors, the spec's process-group
// strategies, and the in-process transport's rendezvous and timeouts.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "vm/collectives/collectives.h"
#include "vm/collectives/collectives_local.h"

namespace kiln::vm {
namespace {

using G = std::vector<std::vector<uint32_t>>;

CollectiveDesc Desc(std::string op, int64_t channel, bool global, std::vector<std::vector<int64_t>> groups) {
  CollectiveDesc d;
  d.op = std::move(op);
  d.channel = channel;
  d.use_global_device_ids = global;
  d.has_groups = true;
  d.groups = std::move(groups);
  return d;
}

TEST(CollectiveDesc, RoundTripsAndRefusesGarbage) {
  CollectiveDesc d = Desc("stablehlo.all_gather", 3, true, {{0, 1}, {2, -1}});
  d.dim = 1;
  auto p = CollectiveDesc::Parse(d.Serialize());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->Serialize(), d.Serialize());
  EXPECT_EQ(p->groups, d.groups);
  EXPECT_FALSE(CollectiveDesc::Parse("op=x;channel=abc").ok());
  EXPECT_FALSE(CollectiveDesc::Parse("channel=1").ok());
  EXPECT_FALSE(CollectiveDesc::Parse("op=x;bogus=1").ok());
  EXPECT_FALSE(CollectiveDesc::Parse("op=x;groups=1,,2").ok());
}

// AllReduceBuffers of the in-process transport: 3 processes, each with its
// own input and result (one of them the same buffer), every element
// reduced in group order, as the general path folds them; odd counts so the
// slices differ in size; wrapping integer products; floating max refused.
template <typename T>
std::vector<std::vector<T>> ReduceOnThreads(StandardReduction op, ElementType type, const std::vector<std::vector<T>>& in,
                                            std::vector<StatusOr<bool>>* outcomes) {
  const size_t n = in.size();
  InProcessTransport t(static_cast<uint32_t>(n), 1);
  std::vector<std::vector<T>> inputs = in, results(n, std::vector<T>(in[0].size()));
  std::vector<std::thread> threads;
  outcomes->assign(n, StatusOr<bool>(false));
  for (size_t i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      CollectiveTransport::Exchange e;
      e.self = static_cast<uint32_t>(i);
      for (uint32_t k = 0; k < n; ++k) e.group.push_back(k);
      e.label = "stablehlo.all_reduce";
      e.signature = "all_reduce";
      e.timeout = std::chrono::milliseconds(10000);
      // Process 1 reduces in place: its result is its input.
      T* out = i == 1 ? inputs[i].data() : results[i].data();
      CollectiveTransport::ReduceBuffers b{type, static_cast<int64_t>(in[0].size()), inputs[i].data(), out};
      (*outcomes)[i] = t.AllReduceBuffers(e, op, b);
    });
  for (auto& th : threads) th.join();
  results[1] = inputs[1];
  return results;
}

TEST(InProcessTransport, AllReducesBetweenBuffersInGroupOrder) {
  const size_t count = 2053;
  std::vector<std::vector<float>> f(3, std::vector<float>(count));
  std::vector<std::vector<int32_t>> i32(3, std::vector<int32_t>(count));
  std::vector<std::vector<uint64_t>> u64(3, std::vector<uint64_t>(count));
  for (size_t p = 0; p < 3; ++p)
    for (size_t k = 0; k < count; ++k) {
      f[p][k] = (p == 0 ? 1e8f : 1.0f) * static_cast<float>(k % 7 + 1) / 3.0f;  // sums where order shows
      i32[p][k] = static_cast<int32_t>(0x40000000 + k * 977 + p * 13);          // products that wrap
      u64[p][k] = (k * 2654435761u + p * 40503u) % 100003u;
    }
  std::vector<StatusOr<bool>> outcomes;
  auto fs = ReduceOnThreads(StandardReduction::kSum, ElementType::kF32, f, &outcomes);
  for (auto& o : outcomes) ASSERT_TRUE(o.ok() && *o) << (o.ok() ? "declined" : o.status().message());
  auto ip = ReduceOnThreads(StandardReduction::kProduct, ElementType::kSI32, i32, &outcomes);
  for (auto& o : outcomes) ASSERT_TRUE(o.ok() && *o);
  auto um = ReduceOnThreads(StandardReduction::kMax, ElementType::kUI64, u64, &outcomes);
  for (auto& o : outcomes) ASSERT_TRUE(o.ok() && *o);
  for (size_t p = 0; p < 3; ++p)
    for (size_t k = 0; k < count; ++k) {
      const float fsum = (f[0][k] + f[1][k]) + f[2][k];
      ASSERT_EQ(std::memcmp(&fs[p][k], &fsum, 4), 0) << "process " << p << ", element " << k;
      const uint32_t prod = static_cast<uint32_t>(i32[0][k]) * static_cast<uint32_t>(i32[1][k]) *
                            static_cast<uint32_t>(i32[2][k]);
      ASSERT_EQ(static_cast<uint32_t>(ip[p][k]), prod) << "process " << p << ", element " << k;
      ASSERT_EQ(um[p][k], std::max({u64[0][k], u64[1][k], u64[2][k]})) << "process " << p << ", element " << k;
    }
  // Floating max/min keep the general path (NaN and signed zeros).
  ReduceOnThreads(StandardReduction::kMax, ElementType::kF32, f, &outcomes);
  for (auto& o : outcomes) EXPECT_TRUE(o.ok() && !*o);
}

// The spec's examples (section "Collective ops").
TEST(ProcessGroups, SpecExamples) {
  // cross_replica([[0, 1], [2, 3]]), num_partitions = 2.
  auto g = ProcessGroups(Desc("stablehlo.all_reduce", 0, false, {{0, 1}, {2, 3}}), 4, 2);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g, (G{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));  // [(0,0),(1,0)], [(0,1),(1,1)], ...
  // cross_partition([[0, 1]]), num_replicas = 4.
  g = ProcessGroups(Desc("stablehlo.all_to_all", 1, false, {{0, 1}}), 4, 2);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g, (G{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  // cross_replica_and_partition([[0, 1], [2, 3]]), num_partitions = 2.
  g = ProcessGroups(Desc("stablehlo.all_gather", 1, false, {{0, 1}, {2, 3}}), 4, 2);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g, (G{{0, 2, 1, 3}, {4, 6, 5, 7}}));
  // flattened_ids([[0, 1, 2, 3], [4, 5, 6, 7]]).
  g = ProcessGroups(Desc("stablehlo.reduce_scatter", 1, true, {{0, 1, 2, 3}, {4, 5, 6, 7}}), 4, 2);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g, (G{{0, 1, 2, 3}, {4, 5, 6, 7}}));
}

TEST(ProcessGroups, RaggedRowsMissingGroupsAndRangeErrors) {
  auto g = ProcessGroups(Desc("stablehlo.all_reduce", 0, false, {{0, 1}, {2, -1}}), 3, 1);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g, (G{{0, 1}, {2}}));
  CollectiveDesc none;
  none.op = "stablehlo.all_reduce";
  g = ProcessGroups(none, 2, 2);  // no replica_groups: all replicas
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g, (G{{0, 2}, {1, 3}}));
  auto bad = ProcessGroups(Desc("stablehlo.all_reduce", 0, false, {{0, 5}}), 2, 1);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("id 5"), std::string::npos) << bad.status().message();
  bad = ProcessGroups(Desc("stablehlo.all_reduce", 0, true, {{0, 1}}), 2, 1);
  EXPECT_FALSE(bad.ok());  // use_global_device_ids without a channel (C4)
}

Payload One(uint8_t v) {
  HostTensor t;
  t.type = ElementType::kUI8;
  t.dims = {1};
  t.data = {v};
  return std::make_shared<std::vector<HostTensor>>(std::vector<HostTensor>{t});
}

CollectiveTransport::Exchange Ex(uint32_t self, std::vector<uint32_t> group, uint8_t v, std::string sig,
                                 std::chrono::milliseconds timeout) {
  CollectiveTransport::Exchange e;
  e.self = self;
  e.group = std::move(group);
  e.label = "stablehlo.all_reduce (channel 4)";
  e.signature = std::move(sig);
  e.payload = One(v);
  e.timeout = timeout;
  return e;
}

TEST(InProcessTransport, ExchangesInGroupOrderRepeatedly) {
  InProcessTransport t(3, 1);
  std::vector<std::vector<uint8_t>> seen(3);
  auto body = [&](uint32_t self) {
    for (int round = 0; round < 50; ++round) {
      auto r = t.ExchangeAll(Ex(self, {2, 0, 1}, static_cast<uint8_t>(self * 10 + round % 3), "s",
                                std::chrono::seconds(30)));
      ASSERT_TRUE(r.ok()) << r.status().message();
      for (const auto& p : *r) seen[self].push_back((*p)[0].data[0]);
    }
  };
  std::thread a(body, 1), b(body, 2);
  body(0);
  a.join();
  b.join();
  for (uint32_t self = 0; self < 3; ++self) {
    ASSERT_EQ(seen[self].size(), 150u);
    for (int round = 0; round < 50; ++round) {
      EXPECT_EQ(seen[self][round * 3 + 0], 20 + round % 3);
      EXPECT_EQ(seen[self][round * 3 + 1], 0 + round % 3);
      EXPECT_EQ(seen[self][round * 3 + 2], 10 + round % 3);
    }
  }
}

TEST(InProcessTransport, TimeoutNamesTheMissingProcess) {
  InProcessTransport t(2, 2);
  auto t0 = std::chrono::steady_clock::now();
  auto r = t.ExchangeAll(Ex(0, {0, 2}, 1, "s", std::chrono::milliseconds(150)));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(r.status().message(),
            "stablehlo.all_reduce (channel 4) in process (0, 0) timed out after 0.15 s waiting for process (1, 0) "
            "of its group [(0, 0), (1, 0)]");
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(150));
}

TEST(InProcessTransport, MismatchedSignaturesFailBothSides) {
  InProcessTransport t(2, 1);
  StatusOr<std::vector<Payload>> other = Status::Ok();
  std::thread peer([&] { other = t.ExchangeAll(Ex(1, {0, 1}, 2, "all_gather", std::chrono::seconds(30))); });
  auto mine = t.ExchangeAll(Ex(0, {0, 1}, 1, "all_reduce", std::chrono::seconds(30)));
  peer.join();
  ASSERT_FALSE(mine.ok());
  ASSERT_FALSE(other.ok());
  EXPECT_NE(mine.status().message().find("mismatched collectives"), std::string::npos);
  EXPECT_NE(mine.status().message().find("group [(0, 0), (1, 0)]: process (0, 0) runs all_reduce, process (1, 0) runs all_gather"),
            std::string::npos)
      << mine.status().message();
}

TEST(DescribeMismatch, ReadablePartUnlessOnlyAttributesDiffer) {
  EXPECT_EQ(DescribeMismatch("x (channel 0) on (2xi32) with a=1", 0, "y (channel 0) on (2xi32) with a=1", 1, 1),
            "process (0, 0) runs x (channel 0) on (2xi32), process (1, 0) runs y (channel 0) on (2xi32)");
  EXPECT_EQ(DescribeMismatch("x on () with a=1", 0, "x on () with a=2", 3, 2),
            "process (0, 0) runs x on () with a=1, process (1, 1) runs x on () with a=2");
}

TEST(InProcessTransport, DonePeerEndsTheWaitAtOnce) {
  InProcessTransport t(2, 1);
  t.ProcessDone(1, InvalidArgument("boom"));
  auto r = t.ExchangeAll(Ex(0, {0, 1}, 1, "s", std::chrono::seconds(60)));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("process (1, 0) failed: boom"), std::string::npos) << r.status().message();
}

TEST(InProcessTransport, ChannelsAreFifoPerTarget) {
  InProcessTransport t(2, 1);
  ASSERT_TRUE(t.Send(5, 0, -1, One(1)).ok());
  ASSERT_TRUE(t.Send(5, 0, -1, One(2)).ok());
  ASSERT_TRUE(t.Send(6, 0, 1, One(3)).ok());
  auto a = t.Recv(5, 1, -1, "recv", std::chrono::seconds(1));
  auto b = t.Recv(5, 1, -1, "recv", std::chrono::seconds(1));
  auto c = t.Recv(6, 1, 0, "recv", std::chrono::seconds(1));
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ((**a)[0].data[0], 1);
  EXPECT_EQ((**b)[0].data[0], 2);
  EXPECT_EQ((**c)[0].data[0], 3);
  auto none = t.Recv(6, 0, 1, "stablehlo.recv (channel 6)", std::chrono::milliseconds(50));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("waiting for a send on channel 6 from process (1, 0)"), std::string::npos)
      << none.status().message();
}

TEST(HostData, ConcatAndSlice) {
  HostTensor a;
  a.type = ElementType::kUI8;
  a.dims = {2, 2};
  a.data = {1, 2, 3, 4};
  HostTensor b = a;
  b.data = {5, 6, 7, 8};
  auto c = ConcatHost({&a, &b}, 1);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->dims, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(c->data, (std::vector<uint8_t>{1, 2, 5, 6, 3, 4, 7, 8}));
  auto s = SliceHost(*c, 1, 1, 2);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->data, b.data);
  EXPECT_FALSE(SliceHost(*c, 1, 0, 3).ok());
  EXPECT_FALSE(ConcatHost({&a, &b}, 2).ok());
}

}  // namespace
}  // namespace kiln::vm
