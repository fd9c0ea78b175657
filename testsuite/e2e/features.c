/* C features the plugin must get right: a 300-case switch, VLAs, alloca,
 * nested functions, computed goto, setjmp/longjmp. */
#include <alloca.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;

static int big_switch(int x)
{
	int s = 0;
	switch (x % 311) {
	case 0: s += 0; break;
	case 1: s += 7; break;
	case 2: s += 1; break;
	case 3: s += 8; break;
	case 4: s += 2; break;
	case 5: s += 9; break;
	case 6: s += 3; break;
	case 7: s += 10; break;
	case 8: s += 4; break;
	case 9: s += 11; break;
	case 10: s += 5; break;
	case 11: s += 12; break;
	case 12: s += 6; break;
	case 13: s += 0; break;
	case 14: s += 7; break;
	case 15: s += 1; break;
	case 16: s += 8; break;
	case 17: s += 2; break;
	case 18: s += 9; break;
	case 19: s += 3; break;
	case 20: s += 10; break;
	case 21: s += 4; break;
	case 22: s += 11; break;
	case 23: s += 5; break;
	case 24: s += 12; break;
	case 25: s += 6; break;
	case 26: s += 0; break;
	case 27: s += 7; break;
	case 28: s += 1; break;
	case 29: s += 8; break;
	case 30: s += 2; break;
	case 31: s += 9; break;
	case 32: s += 3; break;
	case 33: s += 10; break;
	case 34: s += 4; break;
	case 35: s += 11; break;
	case 36: s += 5; break;
	case 37: s += 12; break;
	case 38: s += 6; break;
	case 39: s += 0; break;
	case 40: s += 7; break;
	case 41: s += 1; break;
	case 42: s += 8; break;
	case 43: s += 2; break;
	case 44: s += 9; break;
	case 45: s += 3; break;
	case 46: s += 10; break;
	case 47: s += 4; break;
	case 48: s += 11; break;
	case 49: s += 5; break;
	case 50: s += 12; break;
	case 51: s += 6; break;
	case 52: s += 0; break;
	case 53: s += 7; break;
	case 54: s += 1; break;
	case 55: s += 8; break;
	case 56: s += 2; break;
	case 57: s += 9; break;
	case 58: s += 3; break;
	case 59: s += 10; break;
	case 60: s += 4; break;
	case 61: s += 11; break;
	case 62: s += 5; break;
	case 63: s += 12; break;
	case 64: s += 6; break;
	case 65: s += 0; break;
	case 66: s += 7; break;
	case 67: s += 1; break;
	case 68: s += 8; break;
	case 69: s += 2; break;
	case 70: s += 9; break;
	case 71: s += 3; break;
	case 72: s += 10; break;
	case 73: s += 4; break;
	case 74: s += 11; break;
	case 75: s += 5; break;
	case 76: s += 12; break;
	case 77: s += 6; break;
	case 78: s += 0; break;
	case 79: s += 7; break;
	case 80: s += 1; break;
	case 81: s += 8; break;
	case 82: s += 2; break;
	case 83: s += 9; break;
	case 84: s += 3; break;
	case 85: s += 10; break;
	case 86: s += 4; break;
	case 87: s += 11; break;
	case 88: s += 5; break;
	case 89: s += 12; break;
	case 90: s += 6; break;
	case 91: s += 0; break;
	case 92: s += 7; break;
	case 93: s += 1; break;
	case 94: s += 8; break;
	case 95: s += 2; break;
	case 96: s += 9; break;
	case 97: s += 3; break;
	case 98: s += 10; break;
	case 99: s += 4; break;
	case 100: s += 11; break;
	case 101: s += 5; break;
	case 102: s += 12; break;
	case 103: s += 6; break;
	case 104: s += 0; break;
	case 105: s += 7; break;
	case 106: s += 1; break;
	case 107: s += 8; break;
	case 108: s += 2; break;
	case 109: s += 9; break;
	case 110: s += 3; break;
	case 111: s += 10; break;
	case 112: s += 4; break;
	case 113: s += 11; break;
	case 114: s += 5; break;
	case 115: s += 12; break;
	case 116: s += 6; break;
	case 117: s += 0; break;
	case 118: s += 7; break;
	case 119: s += 1; break;
	case 120: s += 8; break;
	case 121: s += 2; break;
	case 122: s += 9; break;
	case 123: s += 3; break;
	case 124: s += 10; break;
	case 125: s += 4; break;
	case 126: s += 11; break;
	case 127: s += 5; break;
	case 128: s += 12; break;
	case 129: s += 6; break;
	case 130: s += 0; break;
	case 131: s += 7; break;
	case 132: s += 1; break;
	case 133: s += 8; break;
	case 134: s += 2; break;
	case 135: s += 9; break;
	case 136: s += 3; break;
	case 137: s += 10; break;
	case 138: s += 4; break;
	case 139: s += 11; break;
	case 140: s += 5; break;
	case 141: s += 12; break;
	case 142: s += 6; break;
	case 143: s += 0; break;
	case 144: s += 7; break;
	case 145: s += 1; break;
	case 146: s += 8; break;
	case 147: s += 2; break;
	case 148: s += 9; break;
	case 149: s += 3; break;
	case 150: s += 10; break;
	case 151: s += 4; break;
	case 152: s += 11; break;
	case 153: s += 5; break;
	case 154: s += 12; break;
	case 155: s += 6; break;
	case 156: s += 0; break;
	case 157: s += 7; break;
	case 158: s += 1; break;
	case 159: s += 8; break;
	case 160: s += 2; break;
	case 161: s += 9; break;
	case 162: s += 3; break;
	case 163: s += 10; break;
	case 164: s += 4; break;
	case 165: s += 11; break;
	case 166: s += 5; break;
	case 167: s += 12; break;
	case 168: s += 6; break;
	case 169: s += 0; break;
	case 170: s += 7; break;
	case 171: s += 1; break;
	case 172: s += 8; break;
	case 173: s += 2; break;
	case 174: s += 9; break;
	case 175: s += 3; break;
	case 176: s += 10; break;
	case 177: s += 4; break;
	case 178: s += 11; break;
	case 179: s += 5; break;
	case 180: s += 12; break;
	case 181: s += 6; break;
	case 182: s += 0; break;
	case 183: s += 7; break;
	case 184: s += 1; break;
	case 185: s += 8; break;
	case 186: s += 2; break;
	case 187: s += 9; break;
	case 188: s += 3; break;
	case 189: s += 10; break;
	case 190: s += 4; break;
	case 191: s += 11; break;
	case 192: s += 5; break;
	case 193: s += 12; break;
	case 194: s += 6; break;
	case 195: s += 0; break;
	case 196: s += 7; break;
	case 197: s += 1; break;
	case 198: s += 8; break;
	case 199: s += 2; break;
	case 200: s += 9; break;
	case 201: s += 3; break;
	case 202: s += 10; break;
	case 203: s += 4; break;
	case 204: s += 11; break;
	case 205: s += 5; break;
	case 206: s += 12; break;
	case 207: s += 6; break;
	case 208: s += 0; break;
	case 209: s += 7; break;
	case 210: s += 1; break;
	case 211: s += 8; break;
	case 212: s += 2; break;
	case 213: s += 9; break;
	case 214: s += 3; break;
	case 215: s += 10; break;
	case 216: s += 4; break;
	case 217: s += 11; break;
	case 218: s += 5; break;
	case 219: s += 12; break;
	case 220: s += 6; break;
	case 221: s += 0; break;
	case 222: s += 7; break;
	case 223: s += 1; break;
	case 224: s += 8; break;
	case 225: s += 2; break;
	case 226: s += 9; break;
	case 227: s += 3; break;
	case 228: s += 10; break;
	case 229: s += 4; break;
	case 230: s += 11; break;
	case 231: s += 5; break;
	case 232: s += 12; break;
	case 233: s += 6; break;
	case 234: s += 0; break;
	case 235: s += 7; break;
	case 236: s += 1; break;
	case 237: s += 8; break;
	case 238: s += 2; break;
	case 239: s += 9; break;
	case 240: s += 3; break;
	case 241: s += 10; break;
	case 242: s += 4; break;
	case 243: s += 11; break;
	case 244: s += 5; break;
	case 245: s += 12; break;
	case 246: s += 6; break;
	case 247: s += 0; break;
	case 248: s += 7; break;
	case 249: s += 1; break;
	case 250: s += 8; break;
	case 251: s += 2; break;
	case 252: s += 9; break;
	case 253: s += 3; break;
	case 254: s += 10; break;
	case 255: s += 4; break;
	case 256: s += 11; break;
	case 257: s += 5; break;
	case 258: s += 12; break;
	case 259: s += 6; break;
	case 260: s += 0; break;
	case 261: s += 7; break;
	case 262: s += 1; break;
	case 263: s += 8; break;
	case 264: s += 2; break;
	case 265: s += 9; break;
	case 266: s += 3; break;
	case 267: s += 10; break;
	case 268: s += 4; break;
	case 269: s += 11; break;
	case 270: s += 5; break;
	case 271: s += 12; break;
	case 272: s += 6; break;
	case 273: s += 0; break;
	case 274: s += 7; break;
	case 275: s += 1; break;
	case 276: s += 8; break;
	case 277: s += 2; break;
	case 278: s += 9; break;
	case 279: s += 3; break;
	case 280: s += 10; break;
	case 281: s += 4; break;
	case 282: s += 11; break;
	case 283: s += 5; break;
	case 284: s += 12; break;
	case 285: s += 6; break;
	case 286: s += 0; break;
	case 287: s += 7; break;
	case 288: s += 1; break;
	case 289: s += 8; break;
	case 290: s += 2; break;
	case 291: s += 9; break;
	case 292: s += 3; break;
	case 293: s += 10; break;
	case 294: s += 4; break;
	case 295: s += 11; break;
	case 296: s += 5; break;
	case 297: s += 12; break;
	case 298: s += 6; break;
	case 299: s += 0; break;
	default: s = -1;
	}
	return s;
}

static int with_vla(int n)
{
	int v[n], i, s = 0;
	for (i = 0; i < n; i++)
		v[i] = i * i;
	for (i = 0; i < n; i++)
		s += v[i] % 3 ? v[i] : -v[i];
	return s;
}

static int with_alloca(int n)
{
	int *p = alloca(n * sizeof(int)), i, s = 0;
	for (i = 0; i < n; i++)
		p[i] = i;
	for (i = n - 1; i >= 0; i--)
		if (p[i] & 1)
			s += p[i];
	return s;
}

static int outer(int n)
{
	int base = 3;
	int nested(int k) { return k % 2 ? k * base : k + base; }
	int s = 0, i;
	for (i = 0; i < n; i++)
		s += nested(i);
	return s;
}

static int computed(int n)
{
	static void *labels[] = { &&a, &&b, &&c };
	int s = 0, i = 0;
	goto *labels[n % 3];
a:	s += 1;
b:	s += 2;
c:	s += 3;
	if (++i < n % 5)
		goto *labels[i % 3];
	return s;
}

static void thrower(int x)
{
	if (x % 4 == 3)
		longjmp(env, x);
}

static int catcher(int x)
{
	int r = setjmp(env);
	if (r)
		return r * 10;
	thrower(x);
	return x;
}

int main(int argc, char **argv)
{
	long t = 0;
	int i, n = argc > 1 ? atoi(argv[1]) : 50;
	for (i = 0; i < n; i++) {
		t += big_switch(i * 37);
		t += with_vla(i % 17 + 1);
		t += with_alloca(i % 13 + 1);
		t += outer(i % 9);
		t += computed(i);
		t += catcher(i);
	}
	printf("%ld\n", t);
	exit(0);	/* main's loop then cannot reach a return */
}
