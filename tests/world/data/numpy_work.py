# numpy on fixed data: products, a linear solve, an FFT (threads as configured).
import numpy as np

n = 120
i = np.arange(n * n, dtype=np.float64).reshape(n, n)
a = np.sin(i) + np.eye(n) * n
b = np.cos(np.arange(n, dtype=np.float64))
print("dot", np.round((a @ a).sum(), 6), np.round(np.dot(b, b), 9))
x = np.linalg.solve(a, b)
print("solve", np.round(x[:5], 9), np.allclose(a @ x, b))
f = np.fft.fft(b)
print("fft", np.round(np.abs(f[:5]), 9), np.round(np.fft.ifft(f).real[:3], 9))
print("stats", np.round(a.mean(), 9), np.round(np.median(b), 9), int(np.argmax(a.sum(axis=0))))
