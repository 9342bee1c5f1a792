/* flags: -xerrtags */
struct o { int a; };
translator struct o < int x > { a = x; };
BEGIN { trace(xlate <struct o *> ("str")->a); }
