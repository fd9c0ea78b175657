// C++ through the plugin: templates, exceptions (EH edges), virtual calls.
#include <cstdio>
#include <stdexcept>
#include <vector>

struct Shape {
	virtual ~Shape() {}
	virtual int area() const = 0;
};
struct Sq : Shape {
	int s;
	explicit Sq(int v) : s(v) {}
	int area() const override { return s * s; }
};
struct Tri : Shape {
	int b, h;
	Tri(int x, int y) : b(x), h(y) {}
	int area() const override { return b * h / 2; }
};

template <typename T> static T clamp_sum(const std::vector<T> &v, T hi)
{
	T s = 0;
	for (const T &x : v) {
		if (x > hi)
			throw std::out_of_range("too big");
		s += x % 3 ? x : -x;
	}
	return s;
}

int main()
{
	std::vector<int> v;
	long total = 0;
	for (int i = 0; i < 200; i++) {
		v.push_back(i * 7 % 50);
		try {
			total += clamp_sum(v, 45);
		} catch (const std::out_of_range &) {
			total -= 1;
			v.clear();
		}
		Sq sq(i % 9);
		Tri tr(i % 5, i % 7);
		const Shape *s = i % 2 ? static_cast<const Shape *>(&sq) : &tr;
		total += s->area();
	}
	std::printf("%ld\n", total);
	return 0;
}
