public enum _P5 {}
